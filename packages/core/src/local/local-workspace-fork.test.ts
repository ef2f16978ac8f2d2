import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectRejection } from '../testing/rejection-of.js';
import { workspaceForkOf } from '../workspace/workspace-fork.js';
import { LocalWorkspace } from './local-workspace.js';

let root: string;
let workingDir: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'local-workspace-fork-'));
  workingDir = path.join(root, 'project');
  await mkdir(workingDir);
  await writeFile(path.join(workingDir, 'file.txt'), 'content');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('LocalWorkspace.fork', () => {
  it('declares the capability and forks next to the original by default, keeping its options', async () => {
    await using workspace = new LocalWorkspace({ workingDir, env: { FORK_TEST: 'carried' } });
    expect(workspace.capabilities.fork).toBe(true);
    expect(workspaceForkOf(workspace)).toBe(workspace);
    expect(workspace.forkedFrom).toBeUndefined();

    await using fork = await workspace.fork();

    expect(fork).toBeInstanceOf(LocalWorkspace);
    expect(path.dirname(fork.workingDir)).toBe(root);
    expect(path.basename(fork.workingDir)).toMatch(/^project-fork-[0-9a-f]{8}$/);
    expect(fork.forkedFrom).toMatchObject({ directory: workingDir, files: 1, bytes: 7 });
    expect(['reflink', 'copy']).toContain(fork.forkedFrom?.method);
    const result = await fork.executeCommand('cat file.txt; echo " $FORK_TEST"');
    expect(result.stdout).toBe('content carried\n');
    expect((await readdir(root)).sort()).toEqual(['project', path.basename(fork.workingDir)]);
  });

  it('forks to the directory asked for, and refuses one that exists or is relative', async () => {
    await using workspace = new LocalWorkspace({ workingDir });
    const directory = path.join(root, 'chosen');
    await using fork = await workspace.fork({ directory });
    expect(fork.workingDir).toBe(directory);

    const exists = await expectRejection(workspace.fork({ directory }), 'INVALID_ARGUMENT');
    expect(exists.details).toMatchObject({ field: 'directory' });
    expect(exists.message).toContain(directory);
    const relative = await expectRejection(
      workspace.fork({ directory: 'elsewhere' }),
      'INVALID_ARGUMENT',
    );
    expect(relative.details).toMatchObject({ field: 'directory' });
    const inside = await expectRejection(
      workspace.fork({ directory: path.join(workingDir, 'inner') }),
      'INVALID_ARGUMENT',
    );
    expect(inside.details).toMatchObject({ field: 'directory' });
  });

  it('refuses a git worktree with NOT_SUPPORTED, pointing to git-workspaces', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: workingDir,
      });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'first');
    const worktree = path.join(root, 'worktree');
    git('worktree', 'add', '-q', worktree);
    await using workspace = new LocalWorkspace({ workingDir: worktree });
    const error = await expectRejection(workspace.fork(), 'NOT_SUPPORTED');
    expect(error.message).toContain('git-workspaces');
    expect((await readdir(root)).sort()).toEqual(['project', 'worktree']);
  });

  it('leaves nothing when aborted, and is WORKSPACE_CLOSED after close()', async () => {
    const workspace = new LocalWorkspace({ workingDir });
    await expectRejection(workspace.fork({ signal: AbortSignal.abort() }), 'ABORTED');
    expect(await readdir(root)).toEqual(['project']);
    await workspace.close();
    await expectRejection(workspace.fork(), 'WORKSPACE_CLOSED');
  });
});
