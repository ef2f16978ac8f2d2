import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../../errors/workspace-error.js';
import { rejectionOf } from '../../testing/rejection-of.js';
import { type SpawnChildOptions, spawnChild } from './spawn-child.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'spawn-child-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const spawnIn = (options: Partial<SpawnChildOptions> & Pick<SpawnChildOptions, 'file'>) =>
  spawnChild({ args: [], cwd: root, env: process.env, ...options });

/** Resolves with the `SPAWN_ERROR` of a child that must not start. */
async function spawnFailure(options: Parameters<typeof spawnIn>[0]): Promise<WorkspaceError> {
  const child = spawnIn(options);
  expect(child.pid).toBeUndefined();
  expect([child.stdin, child.stdout, child.stderr]).toEqual([null, null, null]);
  const error = await rejectionOf(child.exit);
  expect(WorkspaceError.isInstance(error, 'SPAWN_ERROR'), String(error)).toBe(true);
  return error as WorkspaceError;
}

describe('spawnChild', () => {
  it('pipes stdin and stdout and resolves with the exit code', async () => {
    const child = spawnIn({ file: 'sh', args: ['-c', 'cat; echo err >&2; exit 3'], stdin: 'pipe' });
    expect(child.pid).toBeGreaterThan(0);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.stdin?.end('through the pipe');
    expect(await child.exit).toEqual({ code: 3, signal: null });
    expect([stdout, stderr]).toEqual(['through the pipe', 'err\n']);
  });

  it('reports a missing program as SPAWN_ERROR with errno ENOENT naming it', async () => {
    const error = await spawnFailure({ file: path.join(root, 'missing-program') });
    expect(error.details).toEqual({ program: path.join(root, 'missing-program'), errno: 'ENOENT' });
    expect(error.message).toContain('missing-program');
  });

  it('reports a file without execute permission as EACCES', async () => {
    const script = path.join(root, 'not-executable.sh');
    await writeFile(script, '#!/bin/sh\nexit 0\n');
    await chmod(script, 0o644);
    const error = await spawnFailure({ file: script });
    expect(error.details.errno).toBe('EACCES');
  });

  it('reports an argument over the kernel limit as E2BIG instead of throwing', async () => {
    const error = await spawnFailure({ file: 'true', args: ['x'.repeat(200 * 1024)] });
    expect(error.details).toEqual({ program: 'true', errno: 'E2BIG' });
  });

  it('survives fd exhaustion: every command and git call settles, SPAWN_ERROR for the failures', async () => {
    const packageDir = fileURLToPath(new URL('../../..', import.meta.url));
    const fixture = fileURLToPath(new URL('./test-support/spawn-flood.ts', import.meta.url));
    // 128 descriptors cannot hold the pipes of 200 running commands.
    const script = `ulimit -n 128 && exec "$0" --import tsx "$1"`;
    const { stdout, stderr, code } = await new Promise<{
      stdout: string;
      stderr: string;
      code: number;
    }>((resolve) => {
      execFile(
        'bash',
        ['-c', script, process.execPath, fixture],
        { cwd: packageDir },
        (error, out, err) =>
          resolve({ stdout: out, stderr: err, code: error ? Number(error.code ?? -1) : 0 }),
      );
    });
    expect(stderr).not.toMatch(/Unhandled|not iterable/);
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(stdout) as {
      descriptorsBefore: number;
      descriptorsAfter: number;
      outcomes: Record<'command' | 'git', Record<string, number>>;
      after: string;
      gitAfter: boolean;
    };
    const { command, git } = summary.outcomes;
    for (const counts of [command, git]) {
      for (const outcome of Object.keys(counts)) {
        expect(outcome).toMatch(/^(ok|SPAWN_ERROR:(EMFILE|ENFILE))$/);
      }
    }
    const total = (counts: Record<string, number>) =>
      Object.values(counts).reduce((sum, count) => sum + count, 0);
    expect([total(command), total(git)]).toEqual([200, 50]);
    // Both outcomes happened: the limit was hit, and commands still ran.
    expect(command.ok).toBeGreaterThan(0);
    expect(
      (command['SPAWN_ERROR:EMFILE'] ?? 0) + (command['SPAWN_ERROR:ENFILE'] ?? 0),
    ).toBeGreaterThan(0);
    expect(summary.after).toBe('still works\n');
    expect(summary.gitAfter).toBe(true);
    // No descriptor is left behind by the failed spawns (libuv leaks a pipe pair otherwise). The
    // count may drop: tsx's esbuild service can close its pipes meanwhile on a loaded machine.
    expect(summary.descriptorsAfter).toBeLessThanOrEqual(summary.descriptorsBefore);
  }, 30_000);
});
