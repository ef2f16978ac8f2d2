import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '@agent-workspace/core';
import { execa } from 'execa';
import { type Comparison, compare } from './bench-harness.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
/** Repositories nested in the one asked about, as in a workspace of several checkouts. */
const NESTED = ['api', 'web', 'libs/shared', 'libs/tools'];

/** A repository with one commit, then one edited and one new file. */
async function makeRepository(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await execa('git', ['init', '-q', '-b', 'main', dir]);
  await writeFile(path.join(dir, 'tracked.txt'), 'v1\n');
  await execa('git', ['add', '-A'], { cwd: dir });
  await execa('git', ['commit', '-qm', 'init'], { cwd: dir, env: GIT_ENV });
  await writeFile(path.join(dir, 'tracked.txt'), 'v2\n');
  await writeFile(path.join(dir, 'new.txt'), 'new\n');
}

/** Raw `spawn('git', args)` to its exit. */
function rawGit(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/**
 * `LocalWorkspace.gitChanges` of a repository with four nested ones against what a script
 * would run by hand: `git status --porcelain` in each of the five, one after another.
 */
export async function benchGitChanges(): Promise<Comparison[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-git-changes-'));
  const repositories = ['', ...NESTED].map((name) => path.join(root, name));
  for (const repository of repositories) await makeRepository(repository);
  const workspace = new LocalWorkspace({ workingDir: root });
  const statusArgs = ['status', '--porcelain', '-z', '--untracked-files=all'];
  try {
    return [
      await compare({
        scenario: 'LocalWorkspace.gitChanges, a repository with 4 nested ones',
        iterations: 40,
        baseline: {
          name: '`git status --porcelain` in each of the 5, in turn',
          run: async () => {
            for (const repository of repositories) await rawGit(statusArgs, repository);
          },
        },
        candidate: {
          name: 'LocalWorkspace.gitChanges(root)',
          run: () => workspace.gitChanges(root),
        },
      }),
    ];
  } finally {
    await workspace.close();
    await rm(root, { recursive: true, force: true });
  }
}
