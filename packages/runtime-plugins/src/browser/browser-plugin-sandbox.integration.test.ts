import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BubblewrapSandbox } from '@agent-workspace/core';
import { browserOutputObservationWireSchema } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processTree, readProcessTable } from '../memory/read-process-table.js';
import { PluginHost } from '../plugin/plugin-host.js';
import { expectUnboundStateDirRefused } from '../plugin/test-support/expect-unbound-state-dir-refused.js';
import { isProcessRunning as isRunning } from '../python/test-support/is-process-running.js';
import { createBrowserPlugin } from './browser-plugin.js';
import { chromiumSkipReason, TEST_CHROMIUM } from './test-support/chromium-skip-reason.js';
import { describeUrlPolicyCases, writePolicyPages } from './test-support/url-policy-cases.js';

const SUITE = 'browser plugin in a bubblewrap sandbox';
const skip = chromiumSkipReason(SUITE, BubblewrapSandbox.unsupportedReason());
const REPORT = randomBytes(2048);

/** Live processes whose command line names `text`. */
function processesNaming(text: string): number[] {
  return readProcessTable()
    .map(({ pid }) => pid)
    .filter((pid) => {
      try {
        return isRunning(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    });
}

describe.skipIf(skip !== undefined)(SUITE, () => {
  const secret = `session-key-${randomBytes(8).toString('hex')}`;
  const savedKey = process.env.SESSION_API_KEY;
  let workingDir: string;
  let stateDir: string;
  let sandbox: BubblewrapSandbox;
  let host: PluginHost;
  let server: http.Server;
  let serverBase: string;

  beforeAll(async () => {
    process.env.SESSION_API_KEY = secret;
    workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'browser-sandbox-work-')));
    await writePolicyPages(workingDir);
    await writeFile(path.join(workingDir, 'report.bin'), REPORT);
    // A quote and a space: the launcher script must quote the paths it holds.
    stateDir = await mkdtemp(path.join(os.tmpdir(), "browser sandbox 'state-"));
    server = http.createServer((_request, response) => response.end('host loopback page'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    sandbox = await BubblewrapSandbox.start({
      workingDir,
      network: false,
      writablePaths: [stateDir],
    });
    host = PluginHost.start({
      plugins: [createBrowserPlugin({ executablePath: TEST_CHROMIUM })],
      workingDir,
      stateDir,
      sandbox,
    });
    await host.whenReady('browser');
  });

  afterAll(async () => {
    if (savedKey === undefined) delete process.env.SESSION_API_KEY;
    else process.env.SESSION_API_KEY = savedKey;
    await host?.close();
    await sandbox?.close();
    server?.close();
    for (const dir of [workingDir, stateDir]) {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  });

  async function browse(url: string) {
    return browserOutputObservationWireSchema.parse(
      await host.executeAction({ action: 'browse', args: { url }, timeout: 30 }),
    );
  }

  it('runs Chromium inside the sandbox, without the server’s keys, watched by the memory monitor', async () => {
    const tree = host.memory.report().trees.find(({ label }) => label === 'chromium');
    if (!tree) throw new Error('Chromium is not watched');
    const browsers = processTree(readProcessTable(), tree.pid).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/usr/lib/chromium/');
      } catch {
        return false;
      }
    });
    expect(browsers.length).toBeGreaterThan(0);
    for (const pid of browsers) {
      expect(readlinkSync(`/proc/${pid}/ns/pid`)).not.toBe(readlinkSync('/proc/self/ns/pid'));
      expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain(secret);
    }
    const [status] = await host.status();
    expect(status?.memory_bytes).toBeGreaterThan(10 * 1024 ** 2);
  });

  it('cannot fetch a server on the host’s loopback', async () => {
    // The host reaches it, so the failure below is the sandbox's network namespace.
    expect(await (await fetch(serverBase)).text()).toBe('host loopback page');
    const page = await browse(`${serverBase}/`);
    expect(page.extras.error).toBe(true);
    expect(page.extras.last_browser_action_error).toContain('ERR_CONNECTION_REFUSED');
    expect(JSON.stringify(page)).not.toContain('host loopback page');
  });

  it('saves a download into workingDir/downloads', async () => {
    const page = await browse(pathToFileURL(path.join(workingDir, 'report.bin')).href);
    const target = path.join(workingDir, 'downloads', 'report.bin');
    expect(page.downloads).toEqual([
      {
        path: target,
        url: pathToFileURL(path.join(workingDir, 'report.bin')).href,
        size: REPORT.length,
      },
    ]);
    expect((await readFile(target)).equals(REPORT)).toBe(true);
  });

  describeUrlPolicyCases(() => ({ host, workingDir }));

  it('close() leaves no Chromium process, in the sandbox or out', async () => {
    const tree = host.memory.report().trees.find(({ label }) => label === 'chromium');
    if (!tree) throw new Error('Chromium is not watched');
    const pids = processTree(readProcessTable(), tree.pid);
    // Chromium's browser process and the launch around it name the profile; the sandbox does not.
    const profile = path.join(stateDir, 'browser', 'chromium-profile');
    expect(processesNaming(profile).length).toBeGreaterThan(0);
    expect(pids.length).toBeGreaterThan(2);
    await host.close();
    await vi.waitFor(
      () => {
        expect(processesNaming(profile)).toEqual([]);
        expect(pids.filter(isRunning)).toEqual([]);
      },
      { timeout: 20_000, interval: 50 },
    );
  });
});

describe.skipIf(skip !== undefined)(`${SUITE}, without its state dir bound`, () => {
  it('fails the start with what to bind', async () => {
    await expectUnboundStateDirRefused(createBrowserPlugin({ executablePath: TEST_CHROMIUM }));
  });
});
