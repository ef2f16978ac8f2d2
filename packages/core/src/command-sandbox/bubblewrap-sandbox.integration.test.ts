import { once } from 'node:events';
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { readGitChanges } from '../git/read-git-changes.js';
import { SYSTEM_PATH } from '../internal/process/find-executable.js';
import { shellQuote } from '../internal/process/shell-quote.js';
import { spawnChild } from '../internal/process/spawn-child.js';
import { type StartLocalCommandOptions, startLocalCommand } from '../local/start-local-command.js';
import { commandSandboxSkipReason } from '../testing/command-sandbox-skip-reason.js';
import { expectRejection } from '../testing/rejection-of.js';
import type { SandboxScratch } from '../workspace/command-sandbox.js';
import { BubblewrapSandbox } from './bubblewrap-sandbox.js';
import {
  isAlive,
  pidNamespaceOf,
  pidsInNamespace,
  survivorsOf,
} from './test-support/pid-namespace.js';

const skipReason = commandSandboxSkipReason('BubblewrapSandbox');

let root: string;
let sandbox: BubblewrapSandbox;
beforeAll(async () => {
  if (skipReason) return;
  root = await mkdtemp(path.join(tmpdir(), 'bubblewrap-sandbox-'));
  sandbox = await BubblewrapSandbox.start({ workingDir: await mkdtemp(path.join(root, 'ws-')) });
});
afterAll(async () => {
  await sandbox?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Starts `command` in `box` (default: the shared sandbox), in its working dir. */
function start(command: string, options: Partial<StartLocalCommandOptions> = {}, box = sandbox) {
  return startLocalCommand({
    command,
    cwd: box.workingDir,
    env: {},
    timeoutMs: 10_000,
    maxOutputBytes: 1024 * 1024,
    sandbox: box,
    ...options,
  });
}

const run = (command: string, box = sandbox) => start(command, {}, box).result;

/** Runs `script` in the sandbox with `scratch` shown: its exit code and output. */
async function runWithScratch(script: string, scratch: SandboxScratch) {
  const launch = { file: '/bin/sh', args: ['-c', script], cwd: sandbox.workingDir };
  const child = spawnChild({ ...sandbox.wrap(launch, { scratch }), env: { PATH: SYSTEM_PATH } });
  const [stdout, stderr, { code }] = await Promise.all([
    text(child.stdout as Readable),
    text(child.stderr as Readable),
    child.exit,
  ]);
  return { code, stdout, stderr };
}

/** A TCP server on host 127.0.0.1; `received` resolves with what the first client sent. */
async function listen(): Promise<{ server: Server; port: number; received: Promise<string> }> {
  let deliver: (text: string) => void = () => {};
  const received = new Promise<string>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((socket) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('end', () => deliver(text));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return { server, port, received };
}

describe.skipIf(skipReason !== undefined)('BubblewrapSandbox', () => {
  it('shares a writable working dir across commands and with the host', async () => {
    expect(await run('pwd; echo from-inside > note.txt')).toMatchObject({
      exitCode: 0,
      stdout: `${sandbox.workingDir}\n`,
    });
    expect(await run('cat note.txt')).toMatchObject({ stdout: 'from-inside\n' });
    expect(await readFile(path.join(sandbox.workingDir, 'note.txt'), 'utf8')).toBe('from-inside\n');
  });

  it('hides home directories, other directories and the host /tmp', async () => {
    const outside = await mkdtemp(path.join(root, 'outside-'));
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    const hostTmpFile = path.join(tmpdir(), `aw-sandbox-marker-${process.pid}`);
    await writeFile(hostTmpFile, 'host');
    try {
      const hidden = ['/home', outside, hostTmpFile].map(shellQuote).join(' ');
      const result = await run(
        `ls -A "$HOME" | wc -l; ls -A /root | wc -l; for p in ${hidden}; do test -e "$p" && echo "seen: $p"; done; true`,
      );
      expect(result).toMatchObject({ exitCode: 0, stdout: '0\n0\n', stderr: '' });
      // The host really has what the sandbox does not show.
      expect(readdirSync('/home').length + readdirSync(homedir()).length).toBeGreaterThan(0);
    } finally {
      await rm(hostTmpFile, { force: true });
    }
  });

  it('refuses writes under /usr and /etc and drops every capability', async () => {
    const result = await run(
      'touch /usr/aw-probe || echo usr-refused; touch /etc/aw-probe || echo etc-refused; grep -E "^(CapEff|NoNewPrivs)" /proc/self/status',
    );
    expect(result.stdout).toBe(
      'usr-refused\netc-refused\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n',
    );
    expect(result.stderr).toContain('Read-only file system');
  });

  it('has its own pid namespace: background processes survive and the next command sees them', async () => {
    const started = await run('sleep 30 & echo $!');
    const pid = started.stdout.trim();
    expect(pid).toMatch(/^\d+$/);
    expect(await run(`kill -0 ${pid} && tr '\\0' ' ' < /proc/${pid}/cmdline`)).toMatchObject({
      exitCode: 0,
      stdout: 'sleep 30 ',
    });
    const inside = await run('readlink /proc/self/ns/pid');
    expect(inside.stdout.trim()).not.toBe(readlinkSync('/proc/self/ns/pid'));
    await run(`kill ${pid}`);
  });

  it('passes exit codes, signal deaths and trapped signals through like an unsandboxed command', async () => {
    expect(await run('exit 42')).toMatchObject({ exitCode: 42 });
    expect(await run('kill -TERM $$')).toMatchObject({ exitCode: 143, stderr: '' });
    let ready = () => {};
    const readyPrinted = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const handle = start(
      "trap 'echo caught INT; kill $child; exit 7' INT; sleep 30 & child=$!; echo ready; wait $child",
      { onStdout: (chunk) => chunk.includes('ready') && ready() },
    );
    await readyPrinted;
    handle.signal('SIGINT');
    expect(await handle.result).toMatchObject({ exitCode: 7, stdout: 'ready\ncaught INT\n' });
  });

  it('kills the entered process tree on timeout', async () => {
    const result = await start('sleep 30 & echo $!; wait', { timeoutMs: 300 }).result;
    expect(result).toMatchObject({ timeoutOccurred: true, exitCode: -1 });
    const pid = result.stdout.trim();
    expect((await run(`kill -0 ${pid} 2>/dev/null || echo gone`)).stdout).toBe('gone\n');
  });

  it('connects to the host network with network: true and not with network: false', async () => {
    const { server, port, received } = await listen();
    const offline = await BubblewrapSandbox.start({
      workingDir: await mkdtemp(path.join(root, 'offline-')),
      network: false,
    });
    try {
      const connect = `echo hello > /dev/tcp/127.0.0.1/${port}`;
      expect(await run(connect)).toMatchObject({ exitCode: 0 });
      const refused = await run(connect, offline);
      expect(refused.exitCode).not.toBe(0);
      expect(refused.stderr).toMatch(/Connection refused|Network is unreachable/);
      expect(await received).toBe('hello\n');
      expect(offline.network).toBe(false);
    } finally {
      await offline.close();
      server.close();
    }
  });

  it('runs git inside: a repository in the working dir works, a host path outside does not', async () => {
    const repo = path.join(sandbox.workingDir, 'repo');
    const setup = await run(
      'git init -q repo && cd repo && echo a > a.txt && git -c user.name=t -c user.email=t@e add -A',
    );
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(await readGitChanges({ path: repo, sandbox })).toEqual([
      { status: 'ADDED', path: 'a.txt' },
    ]);
    const outside = await mkdtemp(path.join(root, 'not-in-sandbox-'));
    await expectRejection(readGitChanges({ path: outside, sandbox }), 'GIT_ERROR');
    expect(await readGitChanges({ path: outside })).toEqual([]);
  });

  it('kills every process inside on close(), idempotently', async () => {
    const box = await BubblewrapSandbox.start({
      workingDir: await mkdtemp(path.join(root, 'closing-')),
    });
    const namespace = pidNamespaceOf(box.pid);
    expect((await run('sleep 1000 & sleep 1000 & echo started', box)).stdout).toBe('started\n');
    // bwrap's init, the holder's sleep and the two background sleeps.
    expect(pidsInNamespace(namespace).length).toBeGreaterThanOrEqual(4);
    await Promise.all([box.close(), box[Symbol.asyncDispose]()]);
    expect(await survivorsOf(namespace)).toEqual([]);
    expect(isAlive(box.pid)).toBe(false);
    await box.close();
    const refused = await expectRejection(run('true', box), 'SANDBOX_EXITED');
    expect(refused.message).toContain('closed');
  });

  it('refuses commands with SANDBOX_EXITED once the sandbox died under it', async () => {
    const box = await BubblewrapSandbox.start({
      workingDir: await mkdtemp(path.join(root, 'dying-')),
    });
    try {
      process.kill(box.pid, 'SIGKILL');
      let error: WorkspaceError | undefined;
      for (let attempt = 0; attempt < 250 && !error; attempt++) {
        error = await run('true', box).then(
          async () => {
            await sleep(20);
            return undefined;
          },
          (caught: unknown) => caught as WorkspaceError,
        );
      }
      expect(error?.code, String(error)).toBe('SANDBOX_EXITED');
      expect(error?.message).toContain('exited');
    } finally {
      await box.close();
    }
  });

  it('rejects bad options with INVALID_ARGUMENT naming the field', async () => {
    const cases: Array<[Parameters<typeof BubblewrapSandbox.start>[0], string]> = [
      [{ workingDir: 'relative/dir' }, 'workingDir'],
      [{ workingDir: path.join(root, 'missing') }, 'workingDir'],
      [{ workingDir: '/' }, 'workingDir'],
      [{ workingDir: sandbox.workingDir, readOnlyPaths: ['/usr', 'etc'] }, 'readOnlyPaths[1]'],
      [
        { workingDir: sandbox.workingDir, writablePaths: [path.join(root, 'nope')] },
        'writablePaths[0]',
      ],
    ];
    for (const [options, field] of cases) {
      const error = await expectRejection(BubblewrapSandbox.start(options), 'INVALID_ARGUMENT');
      expect(error.details).toEqual({ field });
    }
  });

  it('shows readOnlyPaths read-only and writablePaths read-write', async () => {
    const shared = await mkdtemp(path.join(root, 'shared-'));
    const reference = await mkdtemp(path.join(root, 'reference-'));
    await writeFile(path.join(reference, 'doc.txt'), 'reference');
    await using box = await BubblewrapSandbox.start({
      workingDir: await mkdtemp(path.join(root, 'paths-')),
      readOnlyPaths: [reference],
      writablePaths: [shared],
    });
    const result = await run(
      `cat '${reference}/doc.txt'; touch '${reference}/x' 2>/dev/null || echo ro; echo w > '${shared}/out.txt'`,
      box,
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: 'referencero\n' });
    expect(await readFile(path.join(shared, 'out.txt'), 'utf8')).toBe('w\n');
  });

  it('shows a scratch to the launches given it alone, without capabilities, and removes it', async () => {
    const scratch = await sandbox.createScratch();
    const other = await sandbox.createScratch();
    const at = shellQuote(scratch.path);
    expect(
      await runWithScratch(`echo kept > ${at}/note; grep CapEff /proc/self/status`, scratch),
    ).toMatchObject({ code: 0, stdout: 'CapEff:\t0000000000000000\n' });
    expect(await runWithScratch(`cat ${at}/note`, scratch)).toMatchObject({ stdout: 'kept\n' });
    expect(await runWithScratch(`ls -A ${at}`, other)).toMatchObject({ code: 0, stdout: '' });
    const plain = await run(
      `ls -A ${at}; touch ${at}/x || echo write-refused; umount ${at} || echo umount-refused`,
    );
    expect(plain).toMatchObject({ stdout: 'write-refused\numount-refused\n' });
    await scratch.remove();
    const launch = { file: '/bin/true', args: [], cwd: sandbox.workingDir };
    for (const bad of [scratch, { ...other }]) {
      let error: unknown;
      try {
        sandbox.wrap(launch, { scratch: bad });
      } catch (caught) {
        error = caught;
      }
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as WorkspaceError).details.field).toBe('scratch');
    }
    await other.remove();
  });
});
