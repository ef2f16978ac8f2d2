import { mkdtemp, realpath, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { browserOutputObservationWireSchema } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PluginHost } from '../plugin/plugin-host.js';
import { createBrowserPlugin } from './browser-plugin.js';
import { chromiumSkipReason, TEST_CHROMIUM } from './test-support/chromium-skip-reason.js';
import { describeUrlPolicyCases, writePolicyPages } from './test-support/url-policy-cases.js';

const SUITE = 'browser URL policy without a sandbox';

describe.skipIf(chromiumSkipReason(SUITE) !== undefined)(SUITE, () => {
  let workingDir: string;
  let stateDir: string;
  let host: PluginHost;

  beforeAll(async () => {
    workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'browser-policy-')));
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'browser-policy-state-'));
    await writePolicyPages(workingDir);
    host = PluginHost.start({
      plugins: [createBrowserPlugin({ executablePath: TEST_CHROMIUM })],
      workingDir,
      stateDir,
    });
    await host.whenReady('browser');
  });

  afterAll(async () => {
    await host?.close();
    for (const dir of [workingDir, stateDir]) {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  });

  describeUrlPolicyCases(() => ({ host, workingDir }));
});

describe.skipIf(chromiumSkipReason('browser proxy') !== undefined)('browser proxy', () => {
  let proxy: http.Server;
  let site: http.Server;
  let proxyBase: string;
  let siteBase: string;
  const proxied: string[] = [];
  let workingDir: string;
  let host: PluginHost;

  beforeAll(async () => {
    // A forward proxy answers requests in absolute form; it serves every page itself.
    proxy = http.createServer((request, response) => {
      proxied.push(request.url ?? '');
      response.setHeader('content-type', 'text/html');
      response.end(`<title>Proxied</title><p>via proxy ${request.url}</p>`);
    });
    site = http.createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end('<title>Direct</title><p>straight from loopback</p>');
    });
    for (const server of [proxy, site]) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    }
    proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    siteBase = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'browser-proxy-')));
    host = PluginHost.start({
      plugins: [createBrowserPlugin({ executablePath: TEST_CHROMIUM })],
      workingDir,
      environment: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: os.homedir(),
        HTTP_PROXY: proxyBase,
      },
    });
    await host.whenReady('browser');
  });

  afterAll(async () => {
    await host?.close();
    proxy?.close();
    site?.close();
    if (workingDir) await rm(workingDir, { recursive: true, force: true });
  });

  async function browse(url: string) {
    return browserOutputObservationWireSchema.parse(
      await host.executeAction({ action: 'browse', args: { url } }),
    );
  }

  it('sends requests through the proxy of the environment', async () => {
    const page = await browse('http://example.test/page');
    expect(page.extras.error).toBe(false);
    expect(page.content).toContain('via proxy http://example.test/page');
    expect(proxied).toContain('http://example.test/page');
  });

  it('keeps loopback direct', async () => {
    const page = await browse(`${siteBase}/`);
    expect(page.title).toBe('Direct');
    expect(page.content).toContain('straight from loopback');
    expect(proxied.some((url) => url.includes('127.0.0.1'))).toBe(false);
  });
});
