import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { expectRejection } from '../testing/rejection-of.js';
import { runGit, runGitBytes } from './run-git.js';
import { TempDirs } from './test-support/test-repository.js';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

/** Git args that run `script` through an alias (`!` runs it with sh), for slow or noisy git. */
const shellAlias = (script: string) => ['-c', `alias.script=!${script}`, 'script'];

/** True while `pid` is a live (not zombie) process. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Polls `check` every 20 ms for at most 5 s; returns its last answer. */
async function readPid(file: string): Promise<number> {
  await vi.waitFor(
    () => expect(existsSync(file) && readFileSync(file, 'utf8').endsWith('\n')).toBe(true),
    { timeout: 5_000, interval: 20 },
  );
  return Number(readFileSync(file, 'utf8'));
}

describe('runGit', () => {
  it('writes input to stdin and returns exit code and output', async () => {
    const cwd = await temp.make();
    const hashed = await runGit(['hash-object', '--stdin'], { cwd, input: 'hello\n' });
    expect(hashed).toEqual({
      exitCode: 0,
      stdout: 'ce013625030ba8dba906f756967f9e9ca394464a\n',
      stderr: '',
    });
    const failed = await runGit(['rev-parse', '--verify', 'HEAD'], { cwd });
    expect(failed.exitCode).toBe(128);
    expect(failed.stderr).toMatch(/not a git repository/);
  });

  it('keeps raw bytes with runGitBytes and decodes stderr', async () => {
    const cwd = await temp.make();
    const result = await runGitBytes(shellAlias("printf '\\377\\000x'; echo oops >&2"), { cwd });
    expect(result.exitCode).toBe(0);
    expect([...result.stdout]).toEqual([0xff, 0x00, 0x78]);
    expect(result.stderr).toBe('oops\n');
  });

  it('kills git and everything it started on timeout, as GIT_ERROR', async () => {
    const cwd = await temp.make();
    const pidFile = path.join(cwd, 'sleep.pid');
    const running = runGit(shellAlias(`sleep 30 & echo $! > ${pidFile}; wait`), {
      cwd,
      timeoutMs: 500,
    });
    const error = await expectRejection(running, 'GIT_ERROR');
    expect(error.message).toContain('timed out after 500 ms');
    const pid = await readPid(pidFile);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000, interval: 20 });
  });

  it('stops git past maxBuffer with GIT_ERROR', async () => {
    const cwd = await temp.make();
    const error = await expectRejection(
      runGit(shellAlias('head -c 100000 /dev/zero; sleep 30'), { cwd, maxBuffer: 1000 }),
      'GIT_ERROR',
    );
    expect(error.message).toContain('more output than allowed');
  });

  it('rejects with ABORTED when the signal fires, and at once when it already fired', async () => {
    const cwd = await temp.make();
    const controller = new AbortController();
    const pidFile = path.join(cwd, 'git.pid');
    const running = runGit(shellAlias(`echo $$ > ${pidFile}; sleep 30`), {
      cwd,
      signal: controller.signal,
    });
    const pid = await readPid(pidFile);
    expect(isAlive(pid)).toBe(true);
    controller.abort();
    await expectRejection(running, 'ABORTED');
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000, interval: 20 });
    await expectRejection(runGit(['version'], { cwd, signal: AbortSignal.abort() }), 'ABORTED');
  });

  it('reports a cwd it cannot start in as SPAWN_ERROR naming git', async () => {
    const error = await expectRejection(
      runGit(['version'], { cwd: path.join(await temp.make(), 'missing') }),
      'SPAWN_ERROR',
    );
    expect(WorkspaceError.isInstance(error)).toBe(true);
    expect(error.details).toMatchObject({ program: 'git', errno: 'ENOENT' });
  });
});
