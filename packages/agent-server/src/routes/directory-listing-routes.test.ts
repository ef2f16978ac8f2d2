import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  DIRECTORY_LISTING_CAPABILITY,
  DIRECTORY_LISTING_ROUTE,
  type DirectoryListingPageWire,
  directoryListingPageWireSchema,
  MAX_DIRECTORY_LISTING_PAGE_LIMIT,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConfinedTestServer,
  startConfinedTestServer,
} from '../test-support/start-confined-test-server.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

function list(t: TestServer, query: Record<string, string>) {
  return fetch(`${t.url}${DIRECTORY_LISTING_ROUTE}?${new URLSearchParams(query)}`);
}

async function page(t: TestServer, query: Record<string, string>) {
  const response = await list(t, query);
  expect(response.status, await response.clone().text()).toBe(200);
  return directoryListingPageWireSchema.parse(await response.json());
}

describe('GET /api/workspace/list_directory', () => {
  let t: TestServer;
  let confined: ConfinedTestServer;
  let base: string;
  beforeAll(async () => {
    t = await startTestServer();
    confined = await startConfinedTestServer();
    base = path.join(t.dir, 'listing');
    for (const name of ['src', 'Docs', '.git'])
      await mkdir(path.join(base, name), { recursive: true });
    await writeFile(path.join(base, 'b.txt'), 'hello');
    await writeFile(path.join(base, 'A.md'), '');
    await writeFile(path.join(base, '.env'), 'SECRET=1');
    await symlink(path.join(base, 'src'), path.join(base, 'link-to-src'));
    await symlink('/nonexistent/target', path.join(base, 'dangling'));
    execFileSync('mkfifo', [path.join(base, 'pipe')]);
  });
  afterAll(async () => {
    await t.close();
    await confined.close();
  });

  it('lists directories first, then the rest by name, links as symlink with sizes of files', async () => {
    const body = await page(t, { path: `${base}//` });
    expect(body).toEqual({
      path: base,
      items: [
        { name: 'Docs', type: 'directory', size: null },
        { name: 'src', type: 'directory', size: null },
        { name: 'A.md', type: 'file', size: 0 },
        { name: 'b.txt', type: 'file', size: 5 },
        { name: 'dangling', type: 'symlink', size: null },
        { name: 'link-to-src', type: 'symlink', size: null },
        { name: 'pipe', type: 'other', size: null },
      ],
      next_page_id: null,
      truncated: false,
    });
  });

  it('pages with limit and page_id and lists hidden names on request', async () => {
    const names: string[][] = [];
    let pageId: string | null = null;
    do {
      const query: Record<string, string> = { path: base, limit: '2', include_hidden: 'true' };
      if (pageId) query.page_id = pageId;
      const body: DirectoryListingPageWire = await page(t, query);
      names.push(body.items.map((item) => item.name));
      pageId = body.next_page_id;
    } while (pageId);
    expect(names).toEqual([
      ['.git', 'Docs'],
      ['src', '.env'],
      ['A.md', 'b.txt'],
      ['dangling', 'link-to-src'],
      ['pipe'],
    ]);
  });

  it('answers 404 for a missing directory, 400 for a file or a relative path', async () => {
    const missing = await list(t, { path: path.join(base, 'nope') });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Directory not found' });
    const file = await list(t, { path: path.join(base, 'b.txt') });
    expect(file.status).toBe(400);
    expect(await file.json()).toEqual({ detail: 'Path is not a directory' });
    const relative = await list(t, { path: 'listing' });
    expect(relative.status).toBe(400);
  });

  it('answers 422 naming the field for bad queries', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'path'],
      [{ path: `${base}/a\0b` }, 'path'],
      [{ path: base, limit: '0' }, 'limit'],
      [{ path: base, limit: String(MAX_DIRECTORY_LISTING_PAGE_LIMIT + 1) }, 'limit'],
      [{ path: base, limit: 'ten' }, 'limit'],
      [{ path: base, include_hidden: 'maybe' }, 'include_hidden'],
      [{ path: base, page_id: 'no-kind' }, 'page_id'],
      [{ path: base, page_id: 'e/a/b' }, 'page_id'],
      [{ path: base, page_id: `e/${'x'.repeat(2000)}` }, 'page_id'],
    ];
    for (const [query, field] of cases) {
      const response = await list(t, query);
      expect(response.status, JSON.stringify(query)).toBe(422);
      expect(await response.text()).toContain(field);
    }
  });

  it('refuses, when confined, /etc, a path above and a link leading out (403)', async () => {
    await writeFile(path.join(confined.outside, 'outside-secret.txt'), 'x');
    for (const target of [
      '/etc',
      '/',
      confined.outside,
      `${confined.dir}/..`,
      path.join(confined.dir, 'escape'),
    ]) {
      const response = await list(confined, { path: target });
      const text = await response.text();
      expect(response.status, `${target}: ${text}`).toBe(403);
      expect(text).toContain('outside the working directory');
      expect(text).not.toContain('outside-secret.txt');
    }
    // Inside, the link leading out is listed as a link, not followed.
    const inside = await page(confined, { path: confined.dir });
    expect(inside.items).toContainEqual({ name: 'escape', type: 'symlink', size: null });
  });

  it('is announced in /server_info', async () => {
    const info = (await (await fetch(`${t.url}/server_info`)).json()) as {
      capabilities: string[];
    };
    expect(info.capabilities).toContain(DIRECTORY_LISTING_CAPABILITY);
  });

  it('is absent without extensions', async () => {
    await using plain = await startTestServer({ extensions: false });
    const response = await list(plain, { path: plain.dir });
    expect(response.status).toBe(404);
  });
});
