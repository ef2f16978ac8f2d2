import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_COMMAND_BYTES, MAX_ENV_BYTES } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { type StartLocalCommandOptions, startLocalCommand } from './start-local-command.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'start-local-command-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function start(command: string, options: Partial<StartLocalCommandOptions> = {}) {
  return startLocalCommand({
    command,
    cwd: root,
    timeoutMs: 10_000,
    env: {},
    maxOutputBytes: 1024 * 1024,
    ...options,
  });
}

/** Resolves with the first stdout chunk that satisfies `match`. */
function waitForStdout(
  options: Partial<StartLocalCommandOptions>,
  match: (text: string) => boolean,
) {
  let seen = '';
  let notify: (text: string) => void = () => {};
  const found = new Promise<string>((resolve) => {
    notify = resolve;
  });
  options.onStdout = (chunk) => {
    seen += chunk;
    if (match(seen)) notify(seen);
  };
  return found;
}

describe('startLocalCommand', () => {
  it('echoes what is written to stdin and ends at closeStdin', async () => {
    const handle = start('cat; echo done', { stdin: 'pipe' });
    expect(handle.pid).toBeGreaterThan(0);
    await handle.writeStdin('hello ');
    await handle.writeStdin(new TextEncoder().encode('wörld\n'));
    handle.closeStdin();
    handle.closeStdin();
    const result = await handle.result;
    expect(result).toMatchObject({ exitCode: 0, stdout: 'hello wörld\ndone\n', stderr: '' });
  });

  it('lets `read` receive a line while the command keeps running', async () => {
    const options: Partial<StartLocalCommandOptions> = { stdin: 'pipe' };
    const prompted = waitForStdout(options, (text) => text.includes('name?'));
    const handle = start(
      'echo name?; read -r line; echo "got [$line]"; read -r rest; echo "eof=$?"',
      options,
    );
    await prompted;
    await handle.writeStdin('Ada Lovelace\n');
    handle.closeStdin();
    const result = await handle.result;
    // The second `read` hits EOF and fails.
    expect(result).toMatchObject({ exitCode: 0, stdout: 'name?\ngot [Ada Lovelace]\neof=1\n' });
  });

  it('gives EOF immediately with the default stdin', async () => {
    const handle = start('cat; echo "cat exited $?"');
    const result = await handle.result;
    expect(result.stdout).toBe('cat exited 0\n');
    const error = await rejectionOf(handle.writeStdin('x'));
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details).toEqual({ field: 'stdin' });
  });

  it('rejects writes after closeStdin and after exit', async () => {
    const handle = start('cat >/dev/null', { stdin: 'pipe' });
    handle.closeStdin();
    const closed = await rejectionOf(handle.writeStdin('late'));
    expect(WorkspaceError.isInstance(closed, 'INVALID_ARGUMENT')).toBe(true);
    expect((closed as Error).message).toContain('closed');
    expect((await handle.result).exitCode).toBe(0);
    const afterExit = await rejectionOf(handle.writeStdin('later'));
    expect(WorkspaceError.isInstance(afterExit, 'INVALID_ARGUMENT')).toBe(true);
  });

  it('sends a signal that a trap catches', async () => {
    const options: Partial<StartLocalCommandOptions> = {};
    const ready = waitForStdout(options, (text) => text.includes('ready'));
    const handle = start(
      "trap 'echo caught INT; kill $child; exit 7' INT; sleep 30 & child=$!; echo ready; wait $child",
      options,
    );
    await ready;
    handle.signal('SIGINT');
    const result = await handle.result;
    expect(result).toMatchObject({ exitCode: 7, stdout: 'ready\ncaught INT\n' });
    expect(result.timeoutOccurred).toBe(false);
  });

  it('signals every process of the group, not only bash', async () => {
    const options: Partial<StartLocalCommandOptions> = {};
    const ready = waitForStdout(options, (text) => text.includes('ready'));
    const handle = start(
      `bash -c 'trap "echo child got TERM; exit 0" TERM; echo ready; while :; do sleep 0.05; done'; echo unreachable`,
      options,
    );
    await ready;
    handle.signal('SIGTERM');
    const result = await handle.result;
    expect(result.exitCode).toBe(143);
    expect(result.stdout).toBe('ready\nchild got TERM\n');
  });

  it('stops reading output while paused, so the command blocks, and loses nothing', async () => {
    let received = 0;
    const handle = start(`head -c ${4 * 1024 * 1024} /dev/zero; echo done > finished`, {
      maxOutputBytes: 8 * 1024 * 1024,
      onStdout: (chunk) => {
        received += chunk.length;
      },
    });
    handle.pauseOutput();
    // The pipe (64 KiB) fills and `head` blocks: the command cannot finish while paused.
    const blocked = await Promise.race([
      handle.result.then(() => 'finished'),
      new Promise((resolve) => setTimeout(resolve, 500, 'blocked')),
    ]);
    expect(blocked).toBe('blocked');
    expect(received).toBe(0);
    handle.resumeOutput();
    const result = await handle.result;
    expect(result.exitCode).toBe(0);
    expect(result.stdout.length).toBe(4 * 1024 * 1024);
  });

  it('keeps output written before exit that was still in the pipe while paused', async () => {
    const handle = start("printf 'tail end'");
    handle.pauseOutput();
    // Longer than the drain after exit: the drain starts again on resume.
    await new Promise((resolve) => setTimeout(resolve, 300));
    handle.resumeOutput();
    expect((await handle.result).stdout).toBe('tail end');
  });

  it('ignores signals once bash has exited', async () => {
    const handle = start('exit 3');
    const result = await handle.result;
    expect(() => handle.signal('SIGKILL')).not.toThrow();
    expect(result.exitCode).toBe(3);
  });

  it('makes env the whole environment with extendEnv: false', async () => {
    const previous = process.env.AW_START_SECRET;
    process.env.AW_START_SECRET = 'leak';
    try {
      const handle = start('printf "%s|%s" "$(printenv AW_START_SECRET || echo unset)" "$ONLY"', {
        env: { ONLY: 'me', PATH: process.env.PATH ?? '' },
        extendEnv: false,
      });
      expect((await handle.result).stdout).toBe('unset|me');
      const merged = start('printf %s "$AW_START_SECRET"');
      expect((await merged.result).stdout).toBe('leak');
    } finally {
      if (previous === undefined) delete process.env.AW_START_SECRET;
      else process.env.AW_START_SECRET = previous;
    }
  });

  it('throws synchronously for a missing cwd and rejects result for a missing shell', async () => {
    expect(() => start('true', { cwd: path.join(root, 'missing') })).toThrowError(
      expect.objectContaining({ code: 'INVALID_CWD' }),
    );
    const handle = start('true', { shell: '/nonexistent/bash', stdin: 'pipe' });
    const error = await rejectionOf(handle.result);
    expect(WorkspaceError.isInstance(error, 'SPAWN_ERROR')).toBe(true);
    expect(() => handle.signal('SIGTERM')).not.toThrow();
  });

  it('runs a command of exactly MAX_COMMAND_BYTES and refuses one byte more as INVALID_ARGUMENT', async () => {
    // `echo ok` then a comment padded with multi-byte characters up to the limit.
    const head = 'echo ok #';
    const padding = MAX_COMMAND_BYTES - Buffer.byteLength(head);
    const longest = `${head}${'é'.repeat(Math.floor(padding / 2))}${'x'.repeat(padding % 2)}`;
    expect(Buffer.byteLength(longest)).toBe(MAX_COMMAND_BYTES);
    expect(await start(longest).result).toMatchObject({ exitCode: 0, stdout: 'ok\n' });

    let thrown: unknown;
    try {
      start(`${longest}x`);
    } catch (error) {
      thrown = error;
    }
    expect(WorkspaceError.isInstance(thrown, 'INVALID_ARGUMENT'), String(thrown)).toBe(true);
    expect((thrown as WorkspaceError).details).toEqual({ field: 'command' });
    expect((thrown as Error).message).toContain(String(MAX_COMMAND_BYTES));
  });

  it('refuses an environment over MAX_ENV_BYTES or with a bad name, naming the field', () => {
    const big = { A: 'x'.repeat(100_000), B: 'x'.repeat(100_000), C: 'x'.repeat(100_000) };
    expect(() => start('true', { env: big })).toThrowError(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'env' } }),
    );
    expect(Object.values(big).join('').length).toBeGreaterThan(MAX_ENV_BYTES);
    expect(() => start('true', { env: { 'A=B': 'x' } })).toThrowError(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field: 'env.A=B' } }),
    );
  });

  it('reports a shell that cannot start as SPAWN_ERROR with errno and the program', async () => {
    const error = await rejectionOf(start('true', { shell: '/nonexistent/bash' }).result);
    expect(WorkspaceError.isInstance(error, 'SPAWN_ERROR')).toBe(true);
    expect((error as WorkspaceError).details).toEqual({
      program: '/nonexistent/bash',
      errno: 'ENOENT',
    });
  });
});
