import { access, constants, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CloneProvisioner, WorktreeProvisioner } from '@agent-workspace/git-workspaces';
import * as peerClone from '@composio/ao-plugin-workspace-clone';
import * as peerWorktree from '@composio/ao-plugin-workspace-worktree';
import { execa } from 'execa';
import { type Comparison, comparisonOf, roundsComparison, summarise } from './bench-harness.js';

/** Rounds of the one-at-a-time rows. */
const RUNS = 8;
const PARALLEL = 10;
/** Rounds of the parallel rows. */
const PARALLEL_RUNS = 3;
const FILES = 10_000;
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

/**
 * A repository of {@link FILES} small files in 100 directories, one commit on `main`, pushed
 * to a bare `origin` at `origin` (so the peers' `git fetch origin` and ours both run).
 */
async function makeRepository(dir: string, origin: string): Promise<void> {
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
  await execa('git', ['init', '-q', '--bare', '-b', 'main', origin]);
  await execa('git', ['remote', 'add', 'origin', origin], { cwd: dir });
  await execa('git', ['push', '-q', '-u', 'origin', 'main'], { cwd: dir });
}

/**
 * Where the bench's repositories go: `/dev/shm` (memory) when writable, else the temp dir. On a
 * disk, writeback of the previous round's 100,000 files throttles whichever side runs next: the
 * same ten parallel worktree creates took 1 s or 40 s, for either side, by the order alone.
 */
async function benchDirectory(): Promise<string> {
  const memory = '/dev/shm';
  const usable = await access(memory, constants.W_OK).then(
    () => true,
    () => false,
  );
  return usable ? memory : tmpdir();
}

/**
 * Waits until the index of each tree was written in an earlier second than now, then runs a
 * `git status` that may rewrite it: afterwards git trusts the files' times. Until then every
 * file of a fresh checkout is "racily clean" (its time is the index's second) and any clean
 * check must read all of them.
 */
async function settle(trees: string[]): Promise<void> {
  await sleep(1_100);
  for (const tree of trees) await execa('git', ['status', '--porcelain'], { cwd: tree });
}

/** Wall time of `operation` and how many of its settled results were rejections. */
async function timeSettled(
  operation: () => Promise<PromiseSettledResult<unknown>[]>,
): Promise<{ ms: number; failures: number }> {
  const start = performance.now();
  const results = await operation();
  return {
    ms: performance.now() - start,
    failures: results.filter((result) => result.status === 'rejected').length,
  };
}

/** {@link PARALLEL} of `create(index)` at once, settled (a failure is counted, not thrown). */
const tenSettled = (create: (index: number) => Promise<unknown>) =>
  Promise.allSettled(Array.from({ length: PARALLEL }, (_, index) => create(index)));

/** Milliseconds `operation` takes. */
async function time(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await operation();
  return performance.now() - start;
}

/** {@link PARALLEL} of `create(index)` at once. */
const ten = (create: (index: number) => Promise<unknown>) =>
  Promise.all(Array.from({ length: PARALLEL }, (_, index) => create(index)));

/** {@link PARALLEL} of `create(index)` one after another. */
async function tenInTurn(create: (index: number) => Promise<unknown>): Promise<void> {
  for (let index = 0; index < PARALLEL; index += 1) await create(index);
}

/**
 * Worktree and clone creation, destruction and {@link PARALLEL} parallel creations on a
 * repository of 10,000 files, against plain `git worktree add` / `git worktree remove` /
 * `git clone --local` / `rm -rf` of the same repository, interleaved in the same run (clean-up
 * untimed). The project has a local bare `origin`, so creates fetch first (ours by default,
 * plain git never). The same three operations also run against Composio's peer plugins
 * (`@composio/ao-plugin-workspace-worktree` / `-clone`), interleaved in the same run, reported
 * best of N with failures of the parallel creates counted; destroy is measured twice, right after
 * create and once the tree's index is settled ({@link settle}). Plain `git worktree add` run at
 * once races on `.git/worktrees` (one fails reading another's half-made `commondir`), so the
 * parallel worktree baseline runs them one after another. Repositories live in
 * {@link benchDirectory}.
 */
export async function benchGitWorkspaces(): Promise<Comparison[]> {
  const dir = await mkdtemp(path.join(await benchDirectory(), 'bench-git-workspaces-'));
  try {
    const repo = path.join(dir, 'repo');
    const root = path.join(dir, 'managed');
    const plain = path.join(dir, 'plain');
    await makeRepository(repo, path.join(dir, 'origin.git'));
    const project = { path: repo, defaultBranch: 'main' };
    const worktrees = new WorktreeProvisioner({ root, reapOnStart: false });
    const clones = new CloneProvisioner({ root, reapOnStart: false });
    const config = (sessionId: string) => ({
      projectId: 'bench',
      project,
      sessionId,
      branch: `managed-${sessionId}`,
    });
    const gitWorktreeAdd = (name: string) =>
      execa(
        'git',
        ['worktree', 'add', '-q', '-b', `plain-${name}`, path.join(plain, name), 'main'],
        {
          cwd: repo,
        },
      );
    const gitWorktreeRemove = (name: string) =>
      execa('git', ['worktree', 'remove', '--force', path.join(plain, name)], { cwd: repo });
    const gitClone = (name: string) =>
      execa('git', ['clone', '-q', '--local', repo, path.join(plain, name)]);
    const rmTree = (name: string) => rm(path.join(plain, name), { recursive: true, force: true });
    const managed = (sessionId: string) => path.join(root, 'bench', sessionId);
    const samples: Record<string, number[]> = {};
    const add = (key: string, value: number) => {
      samples[key] = [...(samples[key] ?? []), value];
    };
    const peerWorktrees = peerWorktree.create({ worktreeDir: path.join(dir, 'peer-worktrees') });
    const peerClones = peerClone.create({ cloneDir: path.join(dir, 'peer-clones') });
    const peerConfig = (sessionId: string) => ({
      projectId: 'bench',
      project: { ...project, name: 'bench', repo: 'bench/bench', sessionPrefix: 'bench' },
      sessionId,
      branch: `peer-${sessionId}`,
    });
    const peerPath = (kind: 'worktrees' | 'clones', sessionId: string) =>
      path.join(dir, `peer-${kind}`, 'bench', sessionId);
    /** Runs `first` then `second`, swapped on odd rounds so neither side always goes first. */
    const inTurn = async (
      round: number,
      first: () => Promise<void>,
      second: () => Promise<void>,
    ) => {
      if (round % 2 === 0) {
        await first();
        await second();
      } else {
        await second();
        await first();
      }
    };
    const failures: Record<string, number> = {};
    const addSettled = (key: string, sample: { ms: number; failures: number }) => {
      add(key, sample.ms);
      failures[key] = (failures[key] ?? 0) + sample.failures;
    };
    for (let run = 0; run < RUNS; run += 1) {
      // create, then destroy, each against plain git and the peer plugin
      add('gitWorktree', await time(() => gitWorktreeAdd(`w${run}`)));
      add('gitWorktreeRemove', await time(() => gitWorktreeRemove(`w${run}`)));
      await inTurn(
        run,
        async () => {
          add('worktree', await time(() => worktrees.create(config(`w${run}`))));
          add('worktreeDestroy', await time(() => worktrees.destroy(managed(`w${run}`))));
        },
        async () => {
          add('peerWorktree', await time(() => peerWorktrees.create(peerConfig(`w${run}`))));
          add(
            'peerWorktreeDestroy',
            await time(() => peerWorktrees.destroy(peerPath('worktrees', `w${run}`))),
          );
        },
      );
      // Destroy of trees whose index git already trusts (as after any `git status` the agent ran).
      await worktrees.create(config(`sw${run}`));
      await peerWorktrees.create(peerConfig(`sw${run}`));
      await clones.create(config(`sc${run}`));
      await peerClones.create(peerConfig(`sc${run}`));
      await settle([
        managed(`sw${run}`),
        peerPath('worktrees', `sw${run}`),
        managed(`sc${run}`),
        peerPath('clones', `sc${run}`),
      ]);
      await inTurn(
        run,
        async () => {
          add('settledWorktreeDestroy', await time(() => worktrees.destroy(managed(`sw${run}`))));
          add('settledCloneDestroy', await time(() => clones.destroy(managed(`sc${run}`))));
        },
        async () => {
          add(
            'peerSettledWorktreeDestroy',
            await time(() => peerWorktrees.destroy(peerPath('worktrees', `sw${run}`))),
          );
          add(
            'peerSettledCloneDestroy',
            await time(() => peerClones.destroy(peerPath('clones', `sc${run}`))),
          );
        },
      );
      add('gitClone', await time(() => gitClone(`c${run}`)));
      add('rm', await time(() => rmTree(`c${run}`)));
      await inTurn(
        run,
        async () => {
          add('clone', await time(() => clones.create(config(`c${run}`))));
          add('cloneDestroy', await time(() => clones.destroy(managed(`c${run}`))));
        },
        async () => {
          add('peerClone', await time(() => peerClones.create(peerConfig(`c${run}`))));
          add(
            'peerCloneDestroy',
            await time(() => peerClones.destroy(peerPath('clones', `c${run}`))),
          );
        },
      );
    }
    for (let run = 0; run < PARALLEL_RUNS; run += 1) {
      add(
        'gitWorktreeTen',
        await time(() => tenInTurn((index) => gitWorktreeAdd(`pw${run}-${index}`))),
      );
      await inTurn(
        run,
        async () =>
          addSettled(
            'worktreeTen',
            await timeSettled(() =>
              tenSettled((index) => worktrees.create(config(`pw${run}-${index}`))),
            ),
          ),
        async () =>
          addSettled(
            'peerWorktreeTen',
            await timeSettled(() =>
              tenSettled((index) => peerWorktrees.create(peerConfig(`pw${run}-${index}`))),
            ),
          ),
      );
      add('gitCloneTen', await time(() => ten((index) => gitClone(`pc${run}-${index}`))));
      await inTurn(
        run,
        async () =>
          addSettled(
            'cloneTen',
            await timeSettled(() =>
              tenSettled((index) => clones.create(config(`pc${run}-${index}`))),
            ),
          ),
        async () =>
          addSettled(
            'peerCloneTen',
            await timeSettled(() =>
              tenSettled((index) => peerClones.create(peerConfig(`pc${run}-${index}`))),
            ),
          ),
      );
      await tenInTurn(async (index) => {
        await gitWorktreeRemove(`pw${run}-${index}`);
        await rmTree(`pc${run}-${index}`);
        await worktrees.destroy(managed(`pw${run}-${index}`), { force: true }).catch(() => {});
        await clones.destroy(managed(`pc${run}-${index}`), { force: true }).catch(() => {});
        await peerWorktrees.destroy(peerPath('worktrees', `pw${run}-${index}`));
        await peerClones.destroy(peerPath('clones', `pc${run}-${index}`));
      });
    }
    const notes = `${FILES} files, ${RUNS} interleaved runs each, clean-up untimed`;
    const parallelNotes = `${FILES} files, ${PARALLEL} at once, ${PARALLEL_RUNS} interleaved runs`;
    const pick = (key: string) => samples[key] ?? [];
    const peerRow = (scenario: string, key: string, peerName: string, ourName: string) =>
      roundsComparison({
        scenario,
        baseline: { name: peerName, samples: pick(`peer${key}`) },
        candidate: { name: ourName, samples: pick(key.charAt(0).toLowerCase() + key.slice(1)) },
        unit: 'ms',
        higherIsBetter: false,
      });
    const attempts = PARALLEL * PARALLEL_RUNS;
    /** Failures of both sides, and the wall time per tree made (a failed create makes none). */
    const failed = (key: string) => {
      const ours = key.charAt(0).toLowerCase() + key.slice(1);
      const perTree = (side: string) => {
        const made = attempts - (failures[side] ?? 0);
        const total = pick(side).reduce((sum, ms) => sum + ms, 0);
        return made > 0 ? `${(total / made).toFixed(0)} ms` : 'none made';
      };
      return `failures: ours ${failures[ours] ?? 0}/${attempts}, peer ${failures[`peer${key}`] ?? 0}/${attempts}; wall time per tree made: ours ${perTree(ours)}, peer ${perTree(`peer${key}`)}`;
    };
    const peerRows = [
      {
        ...peerRow(
          'worktree create vs Composio worktree plugin (10,000 files, both fetch)',
          'Worktree',
          'ao-plugin-workspace-worktree create',
          'WorktreeProvisioner.create',
        ),
        target: '≤ 1.0×',
        notes,
      },
      {
        ...peerRow(
          'worktree destroy vs Composio worktree plugin (10,000 files, clean tree, right after create)',
          'WorktreeDestroy',
          'ao-plugin-workspace-worktree destroy',
          'WorktreeProvisioner.destroy',
        ),
        notes: `${notes}; every file is racily clean, so our clean check reads them all (the peer checks nothing)`,
      },
      {
        ...peerRow(
          'worktree destroy vs Composio worktree plugin (10,000 files, clean tree, index settled)',
          'SettledWorktreeDestroy',
          'ao-plugin-workspace-worktree destroy',
          'WorktreeProvisioner.destroy',
        ),
        target: '≤ 1.2×',
        notes: `${notes}; a git status ran in the tree a second after create`,
      },
      {
        ...peerRow(
          `worktree, ${PARALLEL} parallel creates vs Composio worktree plugin`,
          'WorktreeTen',
          `${PARALLEL} × ao-plugin-workspace-worktree create`,
          `${PARALLEL} × WorktreeProvisioner.create`,
        ),
        target: '≤ 1.0×, zero failures',
        notes: `${parallelNotes}; ${failed('WorktreeTen')}`,
      },
      {
        ...peerRow(
          'clone create vs Composio clone plugin (10,000 files)',
          'Clone',
          'ao-plugin-workspace-clone create',
          'CloneProvisioner.create',
        ),
        target: '≤ 1.0×',
        notes,
      },
      {
        ...peerRow(
          'clone destroy vs Composio clone plugin (10,000 files, clean tree, right after create)',
          'CloneDestroy',
          'ao-plugin-workspace-clone destroy',
          'CloneProvisioner.destroy',
        ),
        notes: `${notes}; every file is racily clean, so our clean check reads them all (the peer checks nothing)`,
      },
      {
        ...peerRow(
          'clone destroy vs Composio clone plugin (10,000 files, clean tree, index settled)',
          'SettledCloneDestroy',
          'ao-plugin-workspace-clone destroy',
          'CloneProvisioner.destroy',
        ),
        target: '≤ 1.2×',
        notes: `${notes}; a git status ran in the tree a second after create`,
      },
      {
        ...peerRow(
          `clone, ${PARALLEL} parallel creates vs Composio clone plugin`,
          'CloneTen',
          `${PARALLEL} × ao-plugin-workspace-clone create`,
          `${PARALLEL} × CloneProvisioner.create`,
        ),
        target: '≤ 1.0×, zero failures',
        notes: `${parallelNotes}; ${failed('CloneTen')}`,
      },
    ];
    return [
      ...peerRows,
      comparisonOf(
        'worktree provisioner create (10,000 files)',
        summarise('git worktree add -b', pick('gitWorktree')),
        summarise('WorktreeProvisioner.create', pick('worktree')),
        { notes },
      ),
      comparisonOf(
        'worktree provisioner destroy (10,000 files, clean tree)',
        summarise('git worktree remove --force', pick('gitWorktreeRemove')),
        summarise('WorktreeProvisioner.destroy', pick('worktreeDestroy')),
        { notes },
      ),
      comparisonOf(
        `worktree provisioner, ${PARALLEL} parallel creates (10,000 files)`,
        summarise(`${PARALLEL} × git worktree add -b in turn`, pick('gitWorktreeTen')),
        summarise(`${PARALLEL} × WorktreeProvisioner.create at once`, pick('worktreeTen')),
        { notes: parallelNotes },
      ),
      comparisonOf(
        'clone provisioner create (10,000 files)',
        summarise('git clone --local', pick('gitClone')),
        summarise('CloneProvisioner.create', pick('clone')),
        { notes },
      ),
      comparisonOf(
        'clone provisioner destroy (10,000 files, clean tree)',
        summarise('rm -rf', pick('rm')),
        summarise('CloneProvisioner.destroy', pick('cloneDestroy')),
        { notes },
      ),
      comparisonOf(
        `clone provisioner, ${PARALLEL} parallel creates (10,000 files)`,
        summarise(`${PARALLEL} × git clone --local at once`, pick('gitCloneTen')),
        summarise(`${PARALLEL} × CloneProvisioner.create at once`, pick('cloneTen')),
        { notes: parallelNotes },
      ),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
