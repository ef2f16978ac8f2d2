import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  GIT_CHANGES_TRUNCATED_HEADER,
  gitCommitChangesPath,
  MAX_GIT_COMMIT_SUBJECT_CHARS,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  git,
  type HistoryRepository,
  makeHistoryRepository,
} from '../git/test-support/history-repository.js';
import {
  type ConfinedTestServer,
  startConfinedTestServer,
} from '../test-support/start-confined-test-server.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

describe('git history routes', () => {
  let t: TestServer;
  let repo: HistoryRepository;

  const commits = (query: Record<string, string>) =>
    fetch(`${t.url}/api/git/commits?${new URLSearchParams(query)}`);
  const commitChanges = (sha: string, target = 'repo') =>
    fetch(`${t.url}${gitCommitChangesPath(sha)}?${new URLSearchParams({ path: target })}`);
  const diff = (query: Record<string, string>) =>
    fetch(`${t.url}/api/git/diff?${new URLSearchParams(query)}`);

  beforeAll(async () => {
    t = await startTestServer();
    repo = await makeHistoryRepository(path.join(t.dir, 'repo'));
  });
  afterAll(() => t.close());

  describe('GET /api/git/commits', () => {
    it('lists the history newest first, merge and both branches included', async () => {
      const response = await commits({ path: 'repo' });
      expect(response.status).toBe(200);
      const page = (await response.json()) as {
        commits: Record<string, string>[];
        has_more: boolean;
      };
      expect(page.has_more).toBe(false);
      expect(page.commits.map((commit) => commit.sha)).toEqual([
        repo.long,
        repo.merge,
        repo.mainline,
        repo.feature,
        repo.edit,
        repo.root,
      ]);
      expect(page.commits[1]).toEqual({
        sha: repo.merge,
        short_sha: expect.stringMatching(/^[0-9a-f]{7,}$/),
        subject: 'merge feature',
        author: 'Test',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      });
      expect(repo.merge.startsWith(page.commits[1]?.short_sha ?? '-')).toBe(true);
    });

    it('cuts a long subject at MAX_GIT_COMMIT_SUBJECT_CHARS', async () => {
      const page = (await (await commits({ path: repo.dir, limit: '1' })).json()) as {
        commits: { subject: string }[];
      };
      expect(page.commits[0]?.subject).toBe(`${'x'.repeat(MAX_GIT_COMMIT_SUBJECT_CHARS)}…`);
    });

    it('answers at most limit commits and says whether there are more', async () => {
      const two = (await (await commits({ path: 'repo', limit: '2' })).json()) as {
        commits: { sha: string }[];
        has_more: boolean;
      };
      expect(two.commits.map((commit) => commit.sha)).toEqual([repo.long, repo.merge]);
      expect(two.has_more).toBe(true);
      const six = (await (await commits({ path: 'repo', limit: '6' })).json()) as {
        has_more: boolean;
      };
      expect(six.has_more).toBe(false);
    });

    it('answers an empty page outside a repository, for a missing path and an unborn branch', async () => {
      await mkdir(path.join(t.dir, 'plain'));
      await mkdir(path.join(t.dir, 'unborn'));
      await git(path.join(t.dir, 'unborn'), 'init', '-q');
      for (const target of ['plain', 'missing', 'unborn']) {
        const response = await commits({ path: target });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ commits: [], has_more: false });
      }
    });

    it('answers 422 naming limit outside 1..200 and without a path', async () => {
      for (const limit of ['0', '201', '1000000000000', 'many', '1.5']) {
        const response = await commits({ path: 'repo', limit });
        expect(response.status, limit).toBe(422);
        expect(await response.json()).toMatchObject({ detail: [{ loc: ['query', 'limit'] }] });
      }
      const response = await fetch(`${t.url}/api/git/commits`);
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ detail: [{ loc: ['query', 'path'] }] });
    });
  });

  describe('GET /api/git/commits/{sha}/changes', () => {
    it('lists a commit against its first parent: edit, deletion, rename', async () => {
      const response = await commitChanges(repo.edit);
      expect(response.status).toBe(200);
      expect(response.headers.has(GIT_CHANGES_TRUNCATED_HEADER)).toBe(false);
      expect(await response.json()).toEqual([
        { status: 'UPDATED', path: 'a.txt' },
        { status: 'DELETED', path: 'b.txt' },
        { status: 'MOVED', path: 'new.txt' },
      ]);
    });

    it('lists a root commit as all added and a merge against its first parent', async () => {
      expect(await (await commitChanges(repo.root)).json()).toEqual([
        { status: 'ADDED', path: 'a.txt' },
        { status: 'ADDED', path: 'b.txt' },
        { status: 'ADDED', path: 'old.txt' },
      ]);
      expect(await (await commitChanges(repo.merge.slice(0, 7))).json()).toEqual([
        { status: 'ADDED', path: 'f.txt' },
      ]);
    });

    it('answers [] outside a repository', async () => {
      const response = await commitChanges(repo.edit, 'plain');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
    });

    it('answers 400 for a sha naming no commit and 422 naming sha for a non-hex one', async () => {
      const unknown = await commitChanges('deadbeef');
      expect(unknown.status).toBe(400);
      expect(((await unknown.json()) as { detail: string }).detail).toContain('deadbeef');
      for (const sha of ['HEAD', '-o', '--output=x', 'abc', 'a'.repeat(65)]) {
        const response = await commitChanges(sha);
        expect(response.status, sha).toBe(422);
        expect(await response.json()).toMatchObject({ detail: [{ loc: ['path', 'sha'] }] });
      }
    });
  });

  describe('GET /api/git/diff with commit or ref', () => {
    it('answers a file as the commit changed it, from git objects', async () => {
      expect(await (await diff({ path: 'repo/a.txt', commit: repo.edit })).json()).toEqual({
        original: 'one\n',
        modified: 'one\nedited\n',
      });
      // Deleted by the commit, absent on disk now.
      expect(await (await diff({ path: 'repo/b.txt', commit: repo.edit })).json()).toEqual({
        original: 'two\n',
        modified: '',
      });
      // Renamed (and edited) by the commit: the old path's content at the parent.
      expect(await (await diff({ path: 'repo/new.txt', commit: repo.edit })).json()).toEqual({
        original: 'moved content\nline two\nline three\n',
        modified: 'moved content\nline two\nline three\nline four\n',
      });
      expect(await (await diff({ path: 'repo/a.txt', commit: repo.root })).json()).toEqual({
        original: '',
        modified: 'one\n',
      });
    });

    it('answers 400 for a commit naming no commit', async () => {
      const response = await diff({ path: 'repo/a.txt', commit: 'deadbeef' });
      expect(response.status).toBe(400);
    });

    it('compares against an explicit ref in changes and diff', async () => {
      const changes = await (
        await fetch(
          `${t.url}/api/git/changes?${new URLSearchParams({ path: 'repo', ref: repo.root })}`,
        )
      ).json();
      expect(changes).toEqual([
        { status: 'UPDATED', path: 'a.txt' },
        { status: 'DELETED', path: 'b.txt' },
        { status: 'ADDED', path: 'f.txt' },
        { status: 'ADDED', path: 'long.txt' },
        { status: 'ADDED', path: 'm.txt' },
        { status: 'MOVED', path: 'new.txt' },
      ]);
      expect(await (await diff({ path: 'repo/a.txt', ref: 'main~4' })).json()).toEqual({
        original: 'one\n',
        modified: 'one\nedited\n',
      });
    });

    it('answers 400 for hostile refs', async () => {
      for (const ref of ['-o', '--output=/tmp/x', 'HEAD;rm', 'HEAD..HEAD~1']) {
        for (const response of [
          await diff({ path: 'repo/a.txt', ref }),
          await fetch(`${t.url}/api/git/changes?${new URLSearchParams({ path: 'repo', ref })}`),
        ]) {
          expect(response.status, ref).toBe(400);
          expect(((await response.json()) as { detail: string }).detail).toContain(ref);
        }
      }
    });
  });

  describe('with confineToWorkingDir', () => {
    let confined: ConfinedTestServer;

    beforeAll(async () => {
      confined = await startConfinedTestServer();
      await makeHistoryRepository(confined.outside);
    });
    afterAll(() => confined.close());

    it('answers 403 for a repository outside', async () => {
      const { outside } = confined;
      for (const route of [
        `/api/git/commits?${new URLSearchParams({ path: outside })}`,
        `/api/git/commits?${new URLSearchParams({ path: 'escape' })}`,
        `${gitCommitChangesPath('abcd')}?${new URLSearchParams({ path: outside })}`,
        `/api/git/diff?${new URLSearchParams({ path: `${outside}/a.txt`, commit: 'abcd' })}`,
      ]) {
        const response = await fetch(`${confined.url}${route}`);
        expect(response.status, route).toBe(403);
      }
    });
  });
});
