import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CloneProvisioner, WorktreeProvisioner } from '@agent-workspace/git-workspaces';
import { execa } from 'execa';
import { type Comparison, comparisonOf, summarise } from './bench-harness.js';

const RUNS = 8;
const FILES = 10_000;
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

/** A repository of {@link FILES} small files in 100 directories, one commit on `main`. */
async function makeRepository(dir: string): Promise<void> {
  await execa('git', ['init', '-q', '-b', 'main', dir]);
  for (let folder = 0; folder < 100; folder += 1) {
    const folderPath = path.join(dir, `d${folder}`);
    await mkdir(folderPath);
    await Promise.all(
      Array.from({ length: FILES / 100 }, (_, file) =>
        writeFile(path.join(folderPath, `f${file}.txt`), `file ${folder}/${file}\n`),
      ),
    );
  }
  await execa('git', ['add', '-A'], { cwd: dir });
  await execa('git', ['commit', '-qm', 'init'], { cwd: dir, env: GIT_ENV });
}

/** Milliseconds `operation` takes. */
async function time(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await operation();
  return performance.now() - start;
}

/**
 * Worktree and clone creation on a repository of 10,000 files, against plain `git worktree add`
 * and `git clone --local` of the same repository, interleaved in the same run (clean-up untimed).
 */
export async function benchGitWorkspaces(): Promise<Comparison[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-git-workspaces-'));
  try {
    const repo = path.join(dir, 'repo');
    const root = path.join(dir, 'managed');
    const plain = path.join(dir, 'plain');
    await makeRepository(repo);
    const project = { path: repo, defaultBranch: 'main' };
    const worktrees = new WorktreeProvisioner({ root, reapOnStart: false });
    const clones = new CloneProvisioner({ root, reapOnStart: false });
    const samples = { gitWorktree: [], worktree: [], gitClone: [], clone: [] } as Record<
      'gitWorktree' | 'worktree' | 'gitClone' | 'clone',
      number[]
    >;
    for (let run = 0; run < RUNS; run += 1) {
      const target = path.join(plain, `w${run}`);
      samples.gitWorktree.push(
        await time(() =>
          execa('git', ['worktree', 'add', '-q', '-b', `plain-${run}`, target, 'main'], {
            cwd: repo,
          }),
        ),
      );
      await execa('git', ['worktree', 'remove', '--force', target], { cwd: repo });
      const config = {
        projectId: 'bench',
        project,
        sessionId: `w${run}`,
        branch: `managed-${run}`,
      };
      let info: { path: string } | undefined;
      samples.worktree.push(
        await time(async () => {
          info = await worktrees.create(config);
        }),
      );
      await worktrees.destroy(info!.path, { force: true });
      const cloneTarget = path.join(plain, `c${run}`);
      samples.gitClone.push(
        await time(() => execa('git', ['clone', '-q', '--local', repo, cloneTarget])),
      );
      await rm(cloneTarget, { recursive: true, force: true });
      const cloneConfig = { ...config, sessionId: `c${run}`, branch: `clone-${run}` };
      samples.clone.push(
        await time(async () => {
          info = await clones.create(cloneConfig);
        }),
      );
      await clones.destroy(info!.path, { force: true });
    }
    const notes = `${FILES} files, ${RUNS} interleaved runs each, clean-up untimed`;
    return [
      comparisonOf(
        'worktree provisioner create (10,000 files)',
        summarise('git worktree add -b', samples.gitWorktree),
        summarise('WorktreeProvisioner.create', samples.worktree),
        { notes },
      ),
      comparisonOf(
        'clone provisioner create (10,000 files)',
        summarise('git clone --local', samples.gitClone),
        summarise('CloneProvisioner.create', samples.clone),
        { notes },
      ),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
