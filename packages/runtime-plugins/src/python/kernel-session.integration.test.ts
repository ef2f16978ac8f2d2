import { existsSync } from 'node:fs';
import { mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KernelSession } from './kernel-session.js';
import { isProcessRunning } from './test-support/is-process-running.js';
import { pythonSkipReason, TEST_PYTHON } from './test-support/python-skip-reason.js';
import { tinyPng } from './test-support/tiny-png.js';

const START_TIMEOUT_MS = 30_000;
const CELL_TIMEOUT_MS = 20_000;
const WAIT = { timeout: 20_000, interval: 50 };

describe('KernelSession start failures', () => {
  it('rejects an interpreter that does not exist with SPAWN_ERROR', async () => {
    const stateDir = await mkdtemp(path.join(os.tmpdir(), 'kernel-state-'));
    try {
      const started = KernelSession.start({
        pythonPath: '/nonexistent/python3',
        cwd: stateDir,
        stateDir,
        startTimeoutMs: START_TIMEOUT_MS,
      });
      await expect(started).rejects.toSatisfy(
        (error) =>
          WorkspaceError.isInstance(error, 'SPAWN_ERROR') &&
          /could not be started.*ENOENT/.test(error.message),
      );
      // Nothing of the failed kernel is left in the state directory.
      expect((await readdir(stateDir)).filter((name) => name.startsWith('kernel-'))).toEqual([]);
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(pythonSkipReason('KernelSession (real IPython kernel)'))('KernelSession', () => {
  let workDir: string;
  let stateDir: string;
  let session: KernelSession;

  const run = (code: string, timeoutMs = CELL_TIMEOUT_MS, signal?: AbortSignal) =>
    session.execute(code, { timeoutMs, signal });

  /**
   * Starts `code` after a line that creates a marker file and waits until the marker is there:
   * the cell is running. Its result comes wrapped, so that awaiting this does not await the cell.
   */
  async function startBlockingCell(code: string, signal?: AbortSignal) {
    const marker = path.join(workDir, `started-${Math.random().toString(36).slice(2)}`);
    const cell = run(`open(${JSON.stringify(marker)}, 'w').close()\n${code}`, 180_000, signal);
    await vi.waitFor(() => expect(existsSync(marker)).toBe(true), WAIT);
    return { cell };
  }

  beforeAll(async () => {
    workDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'kernel-work-')));
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'kernel-state-'));
    session = await KernelSession.start({
      pythonPath: TEST_PYTHON,
      cwd: workDir,
      stateDir,
      startTimeoutMs: START_TIMEOUT_MS,
    });
  });

  afterAll(async () => {
    await session?.close();
    await rm(workDir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
  });

  it('keeps state between cells and answers stdout, stderr and the value', async () => {
    const first = await run('x = 41');
    expect(first).toMatchObject({ status: 'ok', text: '', stateLost: false });
    const second = await run(
      'import sys\nprint("to stdout")\nprint("to stderr", file=sys.stderr)\nx + 1',
    );
    expect(second.status).toBe('ok');
    expect(second.text).toContain('to stdout\n');
    expect(second.text).toContain('to stderr\n');
    expect(second.text.endsWith('42\n')).toBe(true);
    expect(second.executionCount).toBe((first.executionCount ?? 0) + 1);
    expect(second.pid).toBe(session.pid);
  });

  it('answers a traceback without ANSI escapes for a cell that raises', async () => {
    const result = await run('def f():\n    return 1 / 0\nf()');
    expect(result.status).toBe('error');
    expect(result.text).toContain('ZeroDivisionError');
    expect(result.text).toContain('return 1 / 0');
    expect(result.text).not.toContain('\u001b[');
    expect((await run('x')).text).toBe('41\n');
  });

  it('answers an image output as a data: URL and keeps prints around it in order', async () => {
    const png = tinyPng([255, 0, 0]).toString('base64');
    const result = await run(
      `import base64\nfrom IPython.display import Image, display\nprint("before")\ndisplay(Image(data=base64.b64decode("${png}")))\nprint("after")`,
    );
    expect(result.status).toBe('ok');
    expect(result.images).toEqual([`data:image/png;base64,${png}`]);
    expect(result.text).toBe('before\nafter\n');
  });

  it('runs in the working directory and reports where a cell moved it', async () => {
    expect((await run('import os\nos.getcwd()')).text).toBe(`'${workDir}'\n`);
    const moved = await run('os.chdir("/tmp")');
    expect(moved.cwd).toBe('/tmp');
    const back = await run(`os.chdir(${JSON.stringify(workDir)})`);
    expect(back.cwd).toBe(workDir);
  });

  it('runs cells one at a time, in the order they came', async () => {
    const first = run('import time\ntime.sleep(0.3)\norder = [1]');
    const second = run('order.append(2)\norder');
    expect((await first).status).toBe('ok');
    expect((await second).text).toBe('[1, 2]\n');
  });

  it('interrupts a cell that runs past its time and keeps the earlier state', async () => {
    await run('kept = 7');
    const pid = session.pid;
    const result = await run('while True:\n    pass', 1000);
    expect(result).toMatchObject({ status: 'timeout', stateLost: false });
    expect(result.text).toContain('KeyboardInterrupt');
    expect((await run('kept')).text).toBe('7\n');
    expect(session.pid).toBe(pid);
  });

  it('interrupt() stops the running cell', async () => {
    const pid = session.pid;
    const { cell } = await startBlockingCell('import time\ntime.sleep(120)');
    session.interrupt();
    const result = await cell;
    expect(result).toMatchObject({ status: 'interrupted', stateLost: false });
    expect(result.text).toContain('KeyboardInterrupt');
    expect((await run('kept')).text).toBe('7\n');
    expect(session.pid).toBe(pid);
  });

  it('interrupts a cell when its signal aborts', async () => {
    const controller = new AbortController();
    const { cell } = await startBlockingCell('import time\ntime.sleep(120)', controller.signal);
    controller.abort();
    expect(await cell).toMatchObject({ status: 'interrupted', stateLost: false });
    expect((await run('kept')).text).toBe('7\n');
  });

  it('restarts a kernel that ignores the interrupt, and the next cell runs on the new one', async () => {
    const pid = session.pid as number;
    const result = await run(
      'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(120)',
      1000,
    );
    expect(result).toMatchObject({ status: 'timeout', stateLost: true });
    expect(result.note).toMatch(/did not stop when interrupted, so it was restarted/);
    await vi.waitFor(() => expect(isProcessRunning(pid)).toBe(false), WAIT);
    const next = await run('kept');
    expect(next.status).toBe('error');
    expect(next.text).toContain("NameError: name 'kept' is not defined");
    expect(next.pid).not.toBe(pid);
  });

  it('restart() starts a fresh kernel without the old state', async () => {
    await run('gone = 1');
    const pid = session.pid as number;
    await session.restart();
    expect(session.pid).not.toBe(pid);
    expect(isProcessRunning(pid)).toBe(false);
    expect((await run('gone')).text).toContain('NameError');
    expect((await run('1 + 1')).text).toBe('2\n');
  });

  it('reports a kernel killed from outside as died and starts a new one for the next cell', async () => {
    await run('lost = 1');
    const pid = session.pid as number;
    const { cell } = await startBlockingCell('import time\ntime.sleep(120)');
    process.kill(pid, 'SIGKILL');
    const result = await cell;
    expect(result).toMatchObject({ status: 'died', stateLost: true, pid });
    expect(result.note).toContain('was killed by SIGKILL');
    expect(session.alive).toBe(false);
    const next = await run('1 + 1');
    expect(next).toMatchObject({ status: 'ok', text: '2\n' });
    expect(next.pid).not.toBe(pid);
    expect((await run('lost')).text).toContain('NameError');
  });

  it('answers the heartbeat', async () => {
    expect(await session.ping(5000)).toBe(true);
  });

  it('close() kills the kernel and what its cells started, and removes its files', async () => {
    const child = await run('import subprocess\nsubprocess.Popen(["sleep", "300"]).pid');
    const childPid = Number(child.text.trim());
    const pid = session.pid as number;
    expect(isProcessRunning(childPid)).toBe(true);
    await session.close();
    await session.close();
    await vi.waitFor(() => {
      expect(isProcessRunning(pid)).toBe(false);
      expect(isProcessRunning(childPid)).toBe(false);
    }, WAIT);
    expect((await readdir(stateDir)).filter((name) => name.startsWith('kernel-'))).toEqual([]);
    await expect(run('1')).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED'),
    );
  });
});
