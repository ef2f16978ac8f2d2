import path from 'node:path';
import type { GitCommit } from '@agent-workspace/protocol';
import { MAX_GIT_COMMITS_LIMIT } from '@agent-workspace/protocol/constants';
import { describe, expect, it } from 'vitest';
import { type GitHistory, gitHistoryOf } from '../workspace/git-history.js';
import type { ContractContext } from './contract-context.js';
import { runGitScript } from './git-script.js';
import { expectRejection } from './rejection-of.js';

const TEST_TIMEOUT_MS = 30_000;

/**
 * `g commit` with a fixed author and dates, so every field is exact (the variables win over
 * any the workspace sets for its commands).
 */
const commitAt = (date: string, subject: string): string =>
  `GIT_AUTHOR_NAME=contract GIT_AUTHOR_DATE='${date}' GIT_COMMITTER_DATE='${date}' g commit -qm '${subject}'`;

/**
 * Commit-history part of the git contract, for a workspace that declares the `gitHistory`
 * capability (`gitHistoryOf`): `gitCommits` (newest first, exact fields, `limit` and `hasMore`,
 * nothing outside a repository or on an unborn branch) and `gitCommitChanges` (a root commit,
 * every status, paths below a subdirectory, hostile names), relative paths, and the refusals:
 * `limit` and `sha` are `INVALID_ARGUMENT` naming the field, an unknown commit is `GIT_ERROR`.
 * A workspace that does not declare it must not be reachable through `gitHistoryOf`.
 */
export function describeGitHistoryContract(context: ContractContext): void {
  const sh = (cwd: string, script: string): Promise<string> => runGitScript(context, cwd, script);

  /** The workspace's history, or `undefined` after checking it really declares none. */
  const historyOrUndeclared = (): GitHistory | undefined => {
    const history = gitHistoryOf(context.workspace());
    if (history === undefined)
      expect(context.workspace().capabilities?.gitHistory ?? false).toBe(false);
    return history;
  };

  /** A repository with three commits; resolves to their full and short ids, newest first. */
  async function threeCommits(dir: string): Promise<Array<{ sha: string; shortSha: string }>> {
    const log = await sh(
      dir,
      [
        'g init -q .',
        "printf 'one\\n' > a.txt && g add -A",
        commitAt('2024-01-02T03:04:05+00:00', 'first'),
        "printf 'two\\n' > a.txt && g add -A",
        commitAt('2024-01-03T03:04:05+02:00', 'second: with a colon'),
        "printf 'three\\n' > b.txt && g add -A",
        commitAt('2024-01-04T03:04:05-05:00', 'third'),
        'g log --format=%H%x20%h',
      ].join('\n'),
    );
    return log
      .trim()
      .split('\n')
      .map((line) => {
        const [sha = '', shortSha = ''] = line.split(' ');
        return { sha, shortSha };
      });
  }

  describe('git history', () => {
    it(
      'lists commits newest first with exact fields, limit and hasMore',
      async () => {
        const history = historyOrUndeclared();
        if (history === undefined) return;
        const dir = await context.scratchDir('git-commits');
        const ids = await threeCommits(dir);
        const expected: GitCommit[] = [
          {
            ...ids[0],
            subject: 'third',
            author: 'contract',
            timestamp: '2024-01-04T03:04:05-05:00',
          },
          {
            ...ids[1],
            subject: 'second: with a colon',
            author: 'contract',
            timestamp: '2024-01-03T03:04:05+02:00',
          },
          {
            ...ids[2],
            subject: 'first',
            author: 'contract',
            timestamp: '2024-01-02T03:04:05+00:00',
          },
        ] as GitCommit[];
        expect(await history.gitCommits(dir)).toEqual({ commits: expected, hasMore: false });
        expect(await history.gitCommits(dir, { limit: 2 })).toEqual({
          commits: expected.slice(0, 2),
          hasMore: true,
        });
        expect(await history.gitCommits(dir, { limit: 3 })).toEqual({
          commits: expected,
          hasMore: false,
        });
        const relative = path.posix.relative(context.workspace().workingDir, dir);
        expect(await history.gitCommits(relative, { limit: 1 })).toEqual({
          commits: expected.slice(0, 1),
          hasMore: true,
        });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'lists no commits outside any repository, for a missing directory and on an unborn branch',
      async () => {
        const history = historyOrUndeclared();
        if (history === undefined) return;
        const none = { commits: [], hasMore: false };
        const plain = await context.scratchDir('git-commits-plain');
        await sh(plain, 'printf x > file.txt');
        expect(await history.gitCommits(plain)).toEqual(none);
        expect(await history.gitCommits(`${plain}/does-not-exist`)).toEqual(none);
        const unborn = await context.scratchDir('git-commits-unborn');
        await sh(unborn, 'g init -q . && printf x > file.txt && g add -A');
        expect(await history.gitCommits(unborn)).toEqual(none);
        expect(await history.gitCommitChanges(plain, 'deadbeef')).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "reports a commit's changes against its first parent, a root commit as all ADDED",
      async () => {
        const history = historyOrUndeclared();
        if (history === undefined) return;
        const dir = await context.scratchDir('git-commit-changes');
        const ids = await sh(
          dir,
          [
            'g init -q .',
            'mkdir -p sub/deep old',
            "printf 'keep\\n' > modified.txt",
            "printf 'bye\\n' > sub/deleted.txt",
            "printf 'a line long enough to be detected as a rename\\n' > old/moved.txt",
            "printf 'deep\\n' > sub/deep/file.txt",
            'g add -A && g commit -qm root',
            "printf 'changed\\n' > modified.txt",
            'g rm -q sub/deleted.txt',
            'g mv old/moved.txt sub/renamed.txt',
            "printf 'new\\n' > $'sub/na\\u00efve\\nname.txt'",
            "printf 'later\\n' > uncommitted.txt",
            'g add modified.txt sub && g commit -qm second',
            'g log --format=%H',
          ].join('\n'),
        );
        const [second = '', root = ''] = ids.trim().split('\n');
        expect(await history.gitCommitChanges(dir, root)).toEqual([
          { status: 'ADDED', path: 'modified.txt' },
          { status: 'ADDED', path: 'old/moved.txt' },
          { status: 'ADDED', path: 'sub/deep/file.txt' },
          { status: 'ADDED', path: 'sub/deleted.txt' },
        ]);
        const changes = [
          { status: 'UPDATED', path: 'modified.txt' },
          { status: 'DELETED', path: 'sub/deleted.txt' },
          { status: 'ADDED', path: 'sub/naïve\nname.txt' },
          { status: 'MOVED', path: 'sub/renamed.txt' },
        ];
        expect(await history.gitCommitChanges(dir, second)).toEqual(changes);
        // An abbreviated id and a relative path give the same answer.
        const relative = path.posix.relative(context.workspace().workingDir, dir);
        expect(await history.gitCommitChanges(relative, second.slice(0, 12))).toEqual(changes);
        // Below a subdirectory: only its paths, relative to it; a file moved in from outside
        // it is ADDED there.
        expect(await history.gitCommitChanges(`${dir}/sub`, second)).toEqual([
          { status: 'DELETED', path: 'deleted.txt' },
          { status: 'ADDED', path: 'naïve\nname.txt' },
          { status: 'ADDED', path: 'renamed.txt' },
        ]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'refuses a bad limit or sha naming the field; an unknown commit is GIT_ERROR',
      async () => {
        const history = historyOrUndeclared();
        if (history === undefined) return;
        const dir = await context.scratchDir('git-history-errors');
        await sh(dir, 'g init -q . && printf x > a.txt && g add -A && g commit -qm only');
        for (const limit of [0, -1, 1.5, MAX_GIT_COMMITS_LIMIT + 1]) {
          const error = await expectRejection(
            history.gitCommits(dir, { limit }),
            'INVALID_ARGUMENT',
          );
          expect(error.details?.field, `limit ${limit}`).toBe('limit');
        }
        expect(
          (await history.gitCommits(dir, { limit: MAX_GIT_COMMITS_LIMIT })).commits,
        ).toHaveLength(1);
        for (const sha of ['HEAD', 'main', '--output=/tmp/x', 'abc', 'a'.repeat(65), '']) {
          const error = await expectRejection(
            history.gitCommitChanges(dir, sha),
            'INVALID_ARGUMENT',
          );
          expect(error.details?.field, `sha ${JSON.stringify(sha)}`).toBe('sha');
        }
        await expectRejection(history.gitCommitChanges(dir, 'deadbeefdeadbeef'), 'GIT_ERROR');
      },
      TEST_TIMEOUT_MS,
    );
  });
}
