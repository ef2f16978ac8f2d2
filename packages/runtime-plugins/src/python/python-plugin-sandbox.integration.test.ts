import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BubblewrapSandbox } from '@agent-workspace/core';
import { suiteSkipReason } from '@agent-workspace/core/testing';
import { ipythonRunCellObservationWireSchema } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { processTree, readProcessTable } from '../memory/read-process-table.js';
import { PluginHost } from '../plugin/plugin-host.js';
import { expectUnboundStateDirRefused } from '../plugin/test-support/expect-unbound-state-dir-refused.js';
import { createPythonPlugin } from './python-plugin.js';
import { isProcessRunning } from './test-support/is-process-running.js';
import { pythonSkipReason, TEST_PYTHON } from './test-support/python-skip-reason.js';

const SUITE = 'python plugin in a bubblewrap sandbox';
const skip =
  pythonSkipReason(SUITE) ?? suiteSkipReason(SUITE, BubblewrapSandbox.unsupportedReason());
const WAIT = { timeout: 20_000, interval: 50 };

describe.skipIf(skip !== undefined)(SUITE, () => {
  const secret = `session-key-${randomBytes(8).toString('hex')}`;
  const savedKey = process.env.SESSION_API_KEY;
  let workingDir: string;
  let stateDir: string;
  let outsideDir: string;
  let sandbox: BubblewrapSandbox;
  let host: PluginHost;
  let server: http.Server;
  let port: number;
  /** A host process started with the key in its environment, as the server is. */
  let keyHolder: ChildProcess;

  async function run(code: string, timeout?: number): Promise<string> {
    const observation = await host.executeAction({
      action: 'run_ipython',
      args: { code, include_extra: false },
      ...(timeout === undefined ? {} : { timeout }),
    });
    return ipythonRunCellObservationWireSchema.parse(observation).content;
  }

  function kernelPid(): number {
    const tree = host.memory.report().trees.find(({ label }) => label === 'python kernel');
    if (!tree) throw new Error('no python kernel is watched');
    return tree.pid;
  }

  beforeAll(async () => {
    // The server's own key: the kernel must never see it.
    process.env.SESSION_API_KEY = secret;
    keyHolder = spawn('sleep', ['300'], { env: { SESSION_API_KEY: secret }, stdio: 'ignore' });
    workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'python-sandbox-work-')));
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'python-sandbox-state-'));
    outsideDir = await mkdtemp(path.join(os.tmpdir(), 'python-sandbox-outside-'));
    await writeFile(path.join(outsideDir, 'secret.txt'), 'outside the working dir');
    server = http.createServer((_request, response) => response.end('host loopback'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    sandbox = await BubblewrapSandbox.start({
      workingDir,
      network: false,
      writablePaths: [stateDir],
    });
    host = PluginHost.start({
      plugins: [createPythonPlugin({ pythonPath: TEST_PYTHON })],
      workingDir,
      stateDir,
      sandbox,
    });
    await host.whenReady('python');
  });

  afterAll(async () => {
    if (savedKey === undefined) delete process.env.SESSION_API_KEY;
    else process.env.SESSION_API_KEY = savedKey;
    await host?.close();
    await sandbox?.close();
    keyHolder?.kill('SIGKILL');
    server?.close();
    for (const dir of [workingDir, stateDir, outsideDir]) {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs cells in the working dir and keeps variables between them', async () => {
    expect(await run('import os\nanswer = 6 * 7\nprint(os.getcwd())')).toBe(workingDir);
    expect(await run('answer')).toBe('42');
    await run(`open('made-inside.txt', 'w').write('from the kernel')`);
    expect(await readFile(path.join(workingDir, 'made-inside.txt'), 'utf8')).toBe(
      'from the kernel',
    );
  });

  it('runs in the sandbox: its own pid namespace, and the memory monitor sees its tree', async () => {
    // Inside, the kernel is one of the sandbox's first processes; outside it has a host pid.
    const inside = Number(await run('import os\nos.getpid()'));
    expect(inside).not.toBe(kernelPid());
    const [tree] = host.memory.report().trees;
    expect(tree).toMatchObject({ label: 'python kernel', pid: kernelPid() });
    expect(tree?.rssBytes).toBeGreaterThan(10 * 1024 ** 2);
  });

  it('interrupts a cell at its time limit and keeps the state', async () => {
    const content = await run('import time\nwhile True:\n    time.sleep(0.01)', 1);
    expect(content).toContain('KeyboardInterrupt');
    expect(content).toMatch(
      /\[The cell was interrupted after 1 seconds: it ran past its time limit\]$/,
    );
    expect(await run('answer')).toBe('42');
  });

  it('restarts a kernel that ignores the interrupt, and the next cell runs on a new one', async () => {
    const pid = kernelPid();
    const content = await run(
      'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(120)',
      1,
    );
    expect(content).toContain('did not stop when interrupted, so it was restarted');
    await vi.waitFor(() => expect(isProcessRunning(pid)).toBe(false), WAIT);
    expect(await run('answer')).toContain("NameError: name 'answer' is not defined");
    expect(kernelPid()).not.toBe(pid);
    expect(await run('1 + 1')).toBe('2');
  });

  it('cannot read a file outside the working dir', async () => {
    const outside = path.join(outsideDir, 'secret.txt');
    const content = await run(
      `try:\n    print(open(${JSON.stringify(outside)}).read())\nexcept OSError as error:\n    print(type(error).__name__)`,
    );
    expect(content).toBe('FileNotFoundError');
  });

  it('has none of the server’s keys: not in its environment, not through /proc', async () => {
    expect(await run(`import os\nprint(os.environ.get('SESSION_API_KEY'))`)).toBe('None');
    const own = await run(
      `print(${JSON.stringify(secret)}.encode() in open('/proc/self/environ', 'rb').read())`,
    );
    expect(own).toBe('False');
    // The host can read it there, so what the kernel answers is the sandbox's doing.
    expect(await readFile(`/proc/${keyHolder.pid}/environ`, 'utf8')).toContain(secret);
    for (const pid of [keyHolder.pid, process.pid]) {
      const read = await run(
        `try:\n    print('read', ${JSON.stringify(secret)}.encode() in open('/proc/${pid}/environ', 'rb').read())\nexcept OSError as error:\n    print(type(error).__name__)`,
      );
      // Its pid namespace has no such process (or, by chance, one of its own).
      expect(read).toMatch(/^(FileNotFoundError|read False)$/);
    }
  });

  it('cannot reach a TCP server on the host’s loopback', async () => {
    // The host itself reaches it, so the refusal below is the sandbox's network namespace.
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('host loopback');
    const content = await run(
      `import socket\ntry:\n    socket.create_connection(('127.0.0.1', ${port}), timeout=5)\n    print('connected')\nexcept OSError as error:\n    print(type(error).__name__)`,
    );
    expect(content).toBe('ConnectionRefusedError');
  });

  it('close() ends the kernel inside the sandbox and what its cells started', async () => {
    await run(`import subprocess\nsubprocess.Popen(['sleep', '300'])`);
    const tree = processTree(readProcessTable(), kernelPid());
    const sleeping = tree.filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u0000300\u0000';
      } catch {
        return false;
      }
    });
    expect(sleeping).toHaveLength(1);
    await host.close();
    await vi.waitFor(() => expect(tree.filter(isProcessRunning)).toEqual([]), WAIT);
  });
});

describe.skipIf(skip !== undefined)(`${SUITE}, without its state dir bound`, () => {
  it('fails the start with what to bind', async () => {
    await expectUnboundStateDirRefused(createPythonPlugin({ pythonPath: TEST_PYTHON }));
  });
});
