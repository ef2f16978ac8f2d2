import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';
import { UI_CONTENT_SECURITY_POLICY, uiDistDir } from './ui-routes.js';

// Counts the loads of the static file plugin: the page's app is built on its first request.
const staticPlugin = vi.hoisted(() => ({ loads: 0 }));
vi.mock('@fastify/static', async (importOriginal) => {
  staticPlugin.loads += 1;
  return importOriginal();
});

describe('ui routes', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('serves the built page at / with its hashed assets, open, and keeps /api behind the key', async () => {
    const root = uiDistDir();
    if (!root)
      throw new Error(
        '@agent-workspace/ui is not built: run pnpm --filter @agent-workspace/ui build',
      );
    t = await startTestServer({ sessionApiKeys: ['secret'] });
    expect(staticPlugin.loads).toBe(0);

    const page = await fetch(`${t.url}/`);
    expect(staticPlugin.loads).toBe(1);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toBe(UI_CONTENT_SECURITY_POLICY);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    const script = /src="\.\/(assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();

    const asset = await fetch(`${t.url}/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript|^application\/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    await asset.arrayBuffer();
    expect((await readdir(path.join(root, 'assets'))).length).toBeGreaterThan(0);

    for (const route of [
      '/assets/',
      '/assets',
      '/../package.json',
      '/%2e%2e/package.json',
      '/nope.js',
    ]) {
      const miss = await fetch(`${t.url}${route}`);
      expect(miss.status, route).toBe(404);
      await miss.arrayBuffer();
    }
    const api = await fetch(`${t.url}/api/no/such/route`);
    expect(api.status).toBe(401);
    const docs = await fetch(`${t.url}/docs`);
    expect(docs.status).toBe(200);
    await docs.arrayBuffer();
    const info = await fetch(`${t.url}/server_info`);
    expect(info.status).toBe(200);
    expect(await info.json()).toHaveProperty('version');
    const authed = await fetch(`${t.url}/api/conversations/search`, {
      headers: { [SESSION_API_KEY_HEADER]: 'secret' },
    });
    expect(authed.status).toBe(200);
    await authed.arrayBuffer();
  });

  it('answers / with the server info when the page is off', async () => {
    t = await startTestServer({ ui: false });
    const response = await fetch(`${t.url}/`);
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveProperty('version');
  });
});
