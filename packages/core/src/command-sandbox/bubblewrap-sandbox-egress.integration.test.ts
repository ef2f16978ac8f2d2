import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../internal/process/shell-quote.js';
import { LocalWorkspace } from '../local/local-workspace.js';
import { startLocalCommand } from '../local/start-local-command.js';
import { commandSandboxSkipReason } from '../testing/command-sandbox-skip-reason.js';
import { expectRejection } from '../testing/rejection-of.js';
import { BubblewrapSandbox } from './bubblewrap-sandbox.js';
import type { EgressRefusal } from './egress-policy.js';
import {
  loopbackHostsName,
  nonLoopbackAddress,
  startEchoTarget,
  startHttpTarget,
  type TestServer,
} from './test-support/egress-targets.js';
import { pidNamespaceOf, survivorsOf } from './test-support/pid-namespace.js';

const skipReason = commandSandboxSkipReason('BubblewrapSandbox egress policy');
const testSupport = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-support');
const client = path.join(testSupport, 'egress-client.mjs');
const lanAddress = nonLoopbackAddress();
const loopbackName = loopbackHostsName();

let root: string;
let sandbox: BubblewrapSandbox;
let web: TestServer;
let lanWeb: TestServer | undefined;
let echo: TestServer;
/** A port no entry lists (discard). */
const UNLISTED_PORT = 9;
const refusals: EgressRefusal[] = [];

beforeAll(async () => {
  if (skipReason) return;
  root = await mkdtemp(path.join(tmpdir(), 'bubblewrap-egress-'));
  web = await startHttpTarget('127.0.0.1');
  echo = await startEchoTarget('127.0.0.1');
  if (lanAddress) lanWeb = await startHttpTarget(lanAddress);
  const allowHosts = [`127.0.0.1:${web.port}`, `127.0.0.1:${echo.port}`, `localhost:${echo.port}`];
  if (lanWeb) allowHosts.push(`${lanWeb.host}:${lanWeb.port}`);
  if (loopbackName) allowHosts.push(`${loopbackName}:${web.port}`);
  sandbox = await BubblewrapSandbox.start({
    workingDir: await mkdtemp(path.join(root, 'ws-')),
    readOnlyPaths: [testSupport],
    network: { allowHosts },
    onEgressRefused: (refusal) => refusals.push(refusal),
  });
});
afterAll(async () => {
  await sandbox?.close();
  await web?.[Symbol.asyncDispose]();
  await echo?.[Symbol.asyncDispose]();
  await lanWeb?.[Symbol.asyncDispose]();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Runs `command` in `box` with `env`; its result. */
function run(command: string, env: Record<string, string> = {}, box = sandbox) {
  return startLocalCommand({
    command,
    cwd: box.workingDir,
    env,
    extendEnv: false,
    timeoutMs: 20_000,
    maxOutputBytes: 1024 * 1024,
    sandbox: box,
  }).result;
}

/** Runs the egress client inside with the proxy variables of `source`; its JSON answer. */
async function inside(source: string, ...args: string[]): Promise<Record<string, unknown>> {
  const command = [process.execPath, client, ...args].map(shellQuote).join(' ');
  const result = await run(command, sandbox.proxyEnvironment(source));
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** The refusals reported while `work` ran. */
async function refusalsOf(work: () => Promise<unknown>): Promise<EgressRefusal[]> {
  const before = refusals.length;
  await work();
  return refusals.slice(before);
}

describe.skipIf(skipReason !== undefined)('BubblewrapSandbox with network: { allowHosts }', () => {
  it('describes itself: no direct network, the normalised entries, proxy variables', () => {
    expect(sandbox.network).toBe(false);
    expect(sandbox.allowHosts).toContain(`127.0.0.1:${web.port}`);
    const env = sandbox.proxyEnvironment('bash');
    expect(env).toEqual({
      HTTP_PROXY: expect.stringMatching(/^http:\/\/bash@127\.0\.0\.1:\d+$/),
      HTTPS_PROXY: env.HTTP_PROXY,
      http_proxy: env.HTTP_PROXY,
      https_proxy: env.HTTP_PROXY,
      NO_PROXY: 'localhost,127.0.0.1,::1',
      no_proxy: 'localhost,127.0.0.1,::1',
      NODE_USE_ENV_PROXY: '1',
    });
  });

  it('reaches a listed loopback host of the machine through the proxy', async () => {
    expect(await inside('bash', 'get', `http://127.0.0.1:${web.port}/x`)).toEqual({
      status: 200,
      body: 'reached 127.0.0.1 GET /x',
    });
  });

  it.skipIf(lanAddress === undefined)(
    'reaches a listed non-loopback address of the machine through the proxy',
    async () => {
      const url = `http://${lanWeb?.host}:${lanWeb?.port}/lan`;
      expect(await inside('bash', 'get', url)).toEqual({
        status: 200,
        body: `reached ${lanWeb?.host} GET /lan`,
      });
    },
  );

  it('tunnels CONNECT to a listed host and port', async () => {
    expect(await inside('bash', 'connect', `127.0.0.1:${echo.port}`, 'hello')).toEqual({
      status: 200,
      body: 'echo:hello',
    });
    expect(await inside('bash', 'connect', `localhost:${echo.port}`, 'again')).toEqual({
      status: 200,
      body: 'echo:again',
    });
  });

  it('refuses unlisted hosts and ports with 403 and reports them with their source', async () => {
    let forward: Record<string, unknown> = {};
    let tunnel: Record<string, unknown> = {};
    const reported = await refusalsOf(async () => {
      forward = await inside('kernel', 'get', `http://127.0.0.1:${UNLISTED_PORT}/`);
      tunnel = await inside('browser', 'connect', `example.com:443`, 'x');
    });
    expect(forward).toEqual({
      status: 403,
      body: `127.0.0.1:${UNLISTED_PORT} is not on the sandbox's network allow-list\n`,
    });
    expect(tunnel).toMatchObject({ status: 403 });
    expect(reported).toEqual([
      { host: '127.0.0.1', port: UNLISTED_PORT, source: 'kernel', reason: 'not_allowed' },
      { host: 'example.com', port: 443, source: 'browser', reason: 'not_allowed' },
    ]);
  });

  it('has no route out for raw sockets: bash /dev/tcp and node net.connect fail', async () => {
    const target = lanWeb ?? web;
    const bash = await run(`echo hi > /dev/tcp/${target.host}/${target.port}`);
    expect(bash.exitCode).not.toBe(0);
    expect(bash.stderr).toMatch(/Network is unreachable|Connection refused/);
    expect(await inside('bash', 'direct', target.host, String(target.port))).toEqual({
      error: target === web ? 'ECONNREFUSED' : 'ENETUNREACH',
    });
    // The host's loopback is not the sandbox's: nothing listens on that port inside.
    expect(await inside('bash', 'direct', '127.0.0.1', String(web.port))).toEqual({
      error: 'ECONNREFUSED',
    });
  });

  it('refuses odd IPv4 spellings and localhost. when only 127.0.0.1 is listed', async () => {
    const reported = await refusalsOf(async () => {
      for (const host of ['127.1', '0x7f000001', '2130706433']) {
        expect(await inside('bash', 'get', `http://${host}:${web.port}/`)).toMatchObject({
          status: 403,
        });
        expect(await inside('bash', 'connect', `${host}:${web.port}`, 'x')).toMatchObject({
          status: 403,
        });
      }
      expect(await inside('bash', 'get', `http://localhost.:${web.port}/`)).toMatchObject({
        status: 403,
      });
    });
    expect(reported.map((refusal) => refusal.reason)).toEqual([
      ...Array(6).fill('non_canonical_address'),
      'not_allowed',
    ]);
  });

  it.skipIf(loopbackName === undefined)(
    'refuses a listed name from /etc/hosts that resolves to loopback',
    async () => {
      const reported = await refusalsOf(async () => {
        const answer = await inside('bash', 'get', `http://${loopbackName}:${web.port}/`);
        expect(answer).toMatchObject({ status: 403 });
      });
      expect(reported).toEqual([
        { host: loopbackName, port: web.port, source: 'bash', reason: 'loopback_address' },
      ]);
    },
  );

  it('cannot resolve names itself: no resolver is reachable inside', async () => {
    const lookedUp = await inside('bash', 'lookup', 'registry.npmjs.org');
    expect(lookedUp).toHaveProperty('error');
    const nameservers = readFileSync('/etc/resolv.conf', 'utf8')
      .split('\n')
      .map((line) => /^nameserver\s+([0-9.]+)\s*$/.exec(line)?.[1])
      .filter((address): address is string => address !== undefined && !address.startsWith('127.'));
    for (const nameserver of nameservers) {
      const udp = await run(`echo > /dev/udp/${nameserver}/53`);
      expect(udp.stderr).toMatch(/Network is unreachable/);
    }
  });

  it('gives LocalWorkspace commands the proxy variables, under their own', async () => {
    const closedRefusals: EgressRefusal[] = [];
    const workspace = new LocalWorkspace({
      workingDir: await mkdtemp(path.join(root, 'local-')),
      sandbox: {
        network: { allowHosts: [`127.0.0.1:${web.port}`] },
        readOnlyPaths: [testSupport],
        onEgressRefused: (refusal) => closedRefusals.push(refusal),
      },
    });
    try {
      const get = (url: string) =>
        workspace.executeCommand([process.execPath, client, 'get', url].map(shellQuote).join(' '));
      const reached = await get(`http://127.0.0.1:${web.port}/local`);
      expect(JSON.parse(reached.stdout)).toEqual({
        status: 200,
        body: 'reached 127.0.0.1 GET /local',
      });
      const refused = await get(`http://127.0.0.1:${echo.port}/`);
      expect(JSON.parse(refused.stdout)).toMatchObject({ status: 403 });
      expect(closedRefusals).toEqual([
        { host: '127.0.0.1', port: echo.port, source: 'command', reason: 'not_allowed' },
      ]);
      const own = await workspace.executeCommand('echo "$NO_PROXY"', { env: { NO_PROXY: 'mine' } });
      expect(own.stdout).toBe('mine\n');
    } finally {
      await workspace.close();
    }
  });

  it('stops the bridge and the proxy and removes the socket directory on close()', async () => {
    const box = await BubblewrapSandbox.start({
      workingDir: await mkdtemp(path.join(root, 'closing-')),
      network: { allowHosts: [] },
    });
    const env = box.proxyEnvironment('bash');
    const port = new URL(env.HTTP_PROXY as string).port;
    const listening = await run(
      `grep -c ':${Number(port).toString(16).toUpperCase().padStart(4, '0')} ' /proc/net/tcp`,
      {},
      box,
    );
    expect(listening.stdout.trim()).toBe('1');
    const socketDir = findSocketDir(box);
    expect(existsSync(socketDir)).toBe(true);
    const namespace = pidNamespaceOf(box.pid);
    await box.close();
    expect(await survivorsOf(namespace)).toEqual([]);
    expect(existsSync(socketDir)).toBe(false);
    const refused = await new Promise<string>((resolve) => {
      connect(path.join(socketDir, 'proxy.sock'))
        .on('connect', () => resolve('connected'))
        .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? ''));
    });
    expect(refused).toBe('ENOENT');
  });

  it('has no proxy variables without a policy and refuses bad sources and policies', async () => {
    await using plain = await BubblewrapSandbox.start({
      workingDir: await mkdtemp(path.join(root, 'plain-')),
      network: false,
    });
    expect(plain.proxyEnvironment('bash')).toEqual({});
    expect(plain.allowHosts).toBeUndefined();
    for (const source of ['', 'a:b', 'a@b', 'x'.repeat(65), 'ünï']) {
      expect(() => sandbox.proxyEnvironment(source), source).toThrow(/^source must be/);
    }
    const cases: Array<[unknown, string]> = [
      ['yes', 'network'],
      [{ allowHosts: ['ok.com'], extra: 1 }, 'network'],
      [{ allowHosts: 'ok.com' }, 'network.allowHosts'],
      [{ allowHosts: ['ok.com', 'bad host'] }, 'network.allowHosts[1]'],
    ];
    for (const [network, field] of cases) {
      const error = await expectRejection(
        BubblewrapSandbox.start({
          workingDir: sandbox.workingDir,
          network: network as { allowHosts: string[] },
        }),
        'INVALID_ARGUMENT',
      );
      expect(error.details).toEqual({ field });
    }
    const misplaced = { workingDir: sandbox.workingDir, network: true, allowHosts: ['ok.com'] };
    const error = await expectRejection(BubblewrapSandbox.start(misplaced), 'INVALID_ARGUMENT');
    expect(error.details).toEqual({ field: 'allowHosts' });
  });
});

/** The egress socket directory bound into `box`, read from its holder's mount table. */
function findSocketDir(box: BubblewrapSandbox): string {
  const mounts = readFileSync(`/proc/${box.pid}/mountinfo`, 'utf8');
  const found = /\s(\/\S*\/aw-egress-[^/\s]+)\s/.exec(mounts)?.[1];
  if (!found) throw new Error(`no egress socket directory in the sandbox's mounts:\n${mounts}`);
  return found;
}
