import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { GitChangesTruncation } from '@agent-workspace/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { type ReadGitChangesOptions, readGitChanges } from './read-git-changes.js';
import { DEFAULT_REPOSITORY_SEARCH_LIMITS } from './repository-search.js';
import { commitAll, initRepository, put, TempDirs } from './test-support/test-repository.js';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

/** A repository at `root/relative` with one untracked file, `<relative>/file.txt` in the result. */
async function repositoryWithChange(root: string, relative: string): Promise<string> {
  const dir = await initRepository(path.join(root, relative));
  await put(dir, 'file.txt', relative);
  return `${relative}/file.txt`;
}

/** What `readGitChanges` answers, with the bound it reports (if any). */
async function readBounded(options: ReadGitChangesOptions) {
  const truncations: GitChangesTruncation[] = [];
  const changes = await readGitChanges({
    ...options,
    onTruncated: (truncation) => truncations.push(truncation),
  });
  return { paths: changes.map((change) => change.path), truncations };
}

describe('readGitChanges: the bounded search for nested repositories', () => {
  it('reports nothing when the whole tree fits the bounds', async () => {
    const root = await temp.make();
    const expected = [
      await repositoryWithChange(root, 'a'),
      await repositoryWithChange(root, 'b/c/d/e/f/g'),
    ];
    const limits = { maxDepth: 6, maxRepositories: 2, maxDirectories: 8 };
    expect(await readBounded({ path: root, searchLimits: limits })).toEqual({
      paths: expected,
      truncations: [],
    });
  });

  it('does not read or scan below maxDepth, and says so', async () => {
    const root = await temp.make();
    const shallow = await repositoryWithChange(root, 'one/two');
    await repositoryWithChange(root, 'one/two-and/three/four');
    expect(await readBounded({ path: root, searchLimits: { maxDepth: 3 } })).toEqual({
      paths: [shallow],
      truncations: ['depth'],
    });

    // Inside a work tree, git lists the nested repository; its depth still counts.
    const repo = await initRepository(await temp.make());
    await put(repo, 'top.txt', 'top');
    const inner = await repositoryWithChange(repo, 'x');
    await repositoryWithChange(repo, 'x/y/z');
    expect(await readBounded({ path: repo, searchLimits: { maxDepth: 2 } })).toEqual({
      paths: ['top.txt', inner],
      truncations: ['depth'],
    });
  });

  it('scans at most maxRepositories, nearest first in name order, and says so', async () => {
    const root = await temp.make();
    const found = [];
    for (const name of ['r1', 'r2', 'r3', 'r4', 'r5'])
      found.push(await repositoryWithChange(root, name));
    await repositoryWithChange(root, 'deeper/r0');
    expect(await readBounded({ path: root, searchLimits: { maxRepositories: 3 } })).toEqual({
      paths: found.slice(0, 3),
      truncations: ['repositories'],
    });

    const repo = await initRepository(await temp.make());
    await put(repo, 'tracked.txt', 'v1');
    await commitAll(repo);
    const nested = [];
    for (const name of ['n1', 'n2', 'n3']) nested.push(await repositoryWithChange(repo, name));
    expect(await readBounded({ path: repo, searchLimits: { maxRepositories: 2 } })).toEqual({
      paths: nested.slice(0, 2),
      truncations: ['repositories'],
    });
  });

  it('reads at most maxDirectories, still scans what it found, and says so', async () => {
    const root = await temp.make();
    const first = await repositoryWithChange(root, 'a-repository');
    for (let index = 0; index < 20; index += 1) {
      await mkdir(path.join(root, `b-plain-${String(index).padStart(2, '0')}`));
    }
    await repositoryWithChange(root, 'z-repository');
    // The root, `a-repository` and 8 plain directories: `z-repository` is never reached.
    expect(await readBounded({ path: root, searchLimits: { maxDirectories: 10 } })).toEqual({
      paths: [first],
      truncations: ['directories'],
    });
  });

  it('stops nested scans that outlast timeoutMs, keeps what the others found, and says so', async () => {
    const root = await temp.make();
    // git blocks opening an index that is a FIFO nobody writes: the scan of such a repository
    // would take git's own 30 s bound without the search's deadline.
    const hanging = async (name: string) => {
      await repositoryWithChange(root, name);
      execFileSync('mkfifo', [path.join(root, name, '.git/index')]);
    };
    const first = await repositoryWithChange(root, 'a');
    await hanging('b-hangs');
    // Scanned beside the hanging one, so it is not held back by it.
    const beside = await repositoryWithChange(root, 'c');
    // These take every lane until the deadline: the repository after them is never scanned.
    for (const name of ['d-hangs', 'e-hangs', 'f-hangs']) await hanging(name);
    await repositoryWithChange(root, 'g-after');
    expect(await readBounded({ path: root, searchLimits: { timeoutMs: 3_000 } })).toEqual({
      paths: [first, beside],
      truncations: ['time'],
    });
  });

  it('reports an ending bound over depth', async () => {
    const root = await temp.make();
    await repositoryWithChange(root, 'a/b/c');
    const near = await repositoryWithChange(root, 'n1');
    await repositoryWithChange(root, 'n2');
    const limits = { maxDepth: 2, maxRepositories: 1 };
    expect(await readBounded({ path: root, searchLimits: limits })).toEqual({
      paths: [near],
      truncations: ['repositories'],
    });
  });

  it('rejects a bad limit as INVALID_ARGUMENT naming it', async () => {
    const root = await temp.make();
    const cases: [ReadGitChangesOptions['searchLimits'], string][] = [
      [{ maxDepth: -1 }, 'searchLimits.maxDepth'],
      [{ maxRepositories: 1.5 }, 'searchLimits.maxRepositories'],
      [{ maxDirectories: Number.NaN }, 'searchLimits.maxDirectories'],
      [{ timeoutMs: 0 }, 'searchLimits.timeoutMs'],
    ];
    for (const [searchLimits, field] of cases) {
      const error = await rejectionOf(readGitChanges({ path: root, searchLimits }));
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'), field).toBe(true);
      expect((error as WorkspaceError).details.field).toBe(field);
    }
  });

  it('has documented defaults', () => {
    expect(DEFAULT_REPOSITORY_SEARCH_LIMITS).toEqual({
      maxDepth: 6,
      maxRepositories: 100,
      maxDirectories: 20_000,
      timeoutMs: 5_000,
    });
  });
});
