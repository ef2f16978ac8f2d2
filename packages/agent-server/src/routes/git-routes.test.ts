import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { GIT_CHANGES_TRUNCATED_HEADER } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConfinedTestServer,
  startConfinedTestServer,
} from '../test-support/start-confined-test-server.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const execFileAsync = promisify(execFile);

/** Runs git in `cwd` with a fixed identity. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const identity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];
  const { stdout } = await execFileAsync('git', [...identity, ...args], { cwd });
  return stdout.trim();
}

/** A repository with one commit (`a.txt`, `b.txt`), then `a.txt` edited and `c.txt` added. */
async function makeRepository(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await git(dir, 'init', '-q', '-b', 'main');
  await writeFile(path.join(dir, 'a.txt'), 'one\n');
  await writeFile(path.join(dir, 'b.txt'), 'two\n');
  await git(dir, 'add', '.');
  await git(dir, 'commit', '-q', '-m', 'first');
  await writeFile(path.join(dir, 'a.txt'), 'one\nmore\n');
  await writeFile(path.join(dir, 'c.txt'), 'new\n');
  return git(dir, 'rev-parse', 'HEAD');
}

describe('git routes', () => {
  let t: TestServer;
  let repo: string;
  let head: string;

  const get = (route: string, query: Record<string, string>) =>
    fetch(`${t.url}/api/git/${route}?${new URLSearchParams(query)}`);

  beforeAll(async () => {
    t = await startTestServer();
    repo = path.join(t.dir, 'repo');
    head = await makeRepository(repo);
  });
  afterAll(() => t.close());

  describe('GET /api/git/changes', () => {
    const changes = [
      { status: 'UPDATED', path: 'a.txt' },
      { status: 'ADDED', path: 'c.txt' },
    ];

    it('lists changes of an absolute path', async () => {
      const response = await get('changes', { path: repo });
      expect(response.status).toBe(200);
      expect(response.headers.has(GIT_CHANGES_TRUNCATED_HEADER)).toBe(false);
      expect(await response.json()).toEqual(changes);
    });

    it('resolves a relative path against the working directory', async () => {
      expect(await (await get('changes', { path: 'repo' })).json()).toEqual(changes);
      expect(await (await get('changes', { path: 'repo', ref: 'HEAD' })).json()).toEqual(changes);
    });

    it('answers [] outside any repository', async () => {
      const plain = path.join(t.dir, 'plain');
      await mkdir(plain);
      expect(await (await get('changes', { path: plain })).json()).toEqual([]);
    });

    it('answers 400 for a bad ref and 422 without a path', async () => {
      const dash = await get('changes', { path: repo, ref: '--output=x' });
      expect(dash.status).toBe(400);
      expect(await dash.json()).toEqual({
        detail: 'ref must not start with "-", got "--output=x"',
      });

      const unknown = await get('changes', { path: repo, ref: 'no-such-ref' });
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toEqual({ detail: expect.stringContaining('no-such-ref') });

      const missing = await fetch(`${t.url}/api/git/changes`);
      expect(missing.status).toBe(422);
      expect(await missing.json()).toEqual({
        detail: [{ type: 'missing', loc: ['query', 'path'], msg: 'Field required', input: {} }],
      });
    });
  });

  describe('GET /api/git/diff', () => {
    const diff = { modified: 'one\nmore\n', original: 'one\n' };

    it('answers the content now and at the base', async () => {
      const response = await get('diff', { path: path.join(repo, 'a.txt') });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(diff);
      // commit: the file as that (root) commit changed it, as OpenHands means it.
      expect(await (await get('diff', { path: 'repo/a.txt', commit: head })).json()).toEqual({
        modified: 'one\n',
        original: '',
      });
      expect(await (await get('diff', { path: 'repo/c.txt', ref: 'HEAD' })).json()).toEqual({
        modified: 'new\n',
        original: '',
      });
    });

    it('answers nulls outside any repository', async () => {
      await writeFile(path.join(t.dir, 'loose.txt'), 'x');
      expect(await (await get('diff', { path: 'loose.txt' })).json()).toEqual({
        modified: null,
        original: null,
      });
    });

    it('answers 400 for ref with commit, a missing file or a directory', async () => {
      const cases: [Record<string, string>, unknown][] = [
        [
          { path: 'repo/a.txt', ref: 'HEAD', commit: head },
          { detail: 'ref and commit are mutually exclusive' },
        ],
        [
          { path: 'repo/nothing.txt' },
          {
            detail: `path does not exist in the work tree nor at the base: ${repo}/nothing.txt`,
          },
        ],
        [{ path: 'repo' }, { detail: `path is a directory: ${repo}` }],
      ];
      for (const [query, body] of cases) {
        const response = await get('diff', query);
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual(body);
      }
    });

    it('answers 422 for a malformed commit', async () => {
      const response = await get('diff', { path: 'repo/a.txt', commit: 'xyz' });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({
        detail: [{ type: 'string_pattern_mismatch', loc: ['query', 'commit'], input: 'xyz' }],
      });
    });
  });

  describe('with bounds on the nested-repository search', () => {
    let bounded: TestServer;
    const changesOf = (target: string) =>
      fetch(`${bounded.url}/api/git/changes?${new URLSearchParams({ path: target })}`);

    beforeAll(async () => {
      bounded = await startTestServer({ gitSearchMaxRepositories: 1, gitSearchMaxDepth: 2 });
      for (const relative of ['wide/one', 'wide/two', 'deep/a/b/c']) {
        const dir = path.join(bounded.dir, relative);
        await mkdir(dir, { recursive: true });
        await git(dir, 'init', '-q');
        await writeFile(path.join(dir, 'file.txt'), `${relative}\n`);
      }
    });
    afterAll(() => bounded.close());

    it('answers the changes found, with the header naming the bound that stopped the search', async () => {
      const wide = await changesOf('wide');
      expect(wide.status).toBe(200);
      expect(wide.headers.get(GIT_CHANGES_TRUNCATED_HEADER)).toBe('repositories');
      expect(await wide.json()).toEqual([{ status: 'ADDED', path: 'one/file.txt' }]);
      const deep = await changesOf('deep');
      expect(deep.headers.get(GIT_CHANGES_TRUNCATED_HEADER)).toBe('depth');
      expect(await deep.json()).toEqual([]);
    });

    it('answers without the header when the search was complete', async () => {
      const response = await changesOf('wide/two');
      expect(response.headers.has(GIT_CHANGES_TRUNCATED_HEADER)).toBe(false);
      expect(await response.json()).toEqual([{ status: 'ADDED', path: 'file.txt' }]);
    });
  });

  describe('with confineToWorkingDir', () => {
    let confined: ConfinedTestServer;
    let outside: string;

    beforeAll(async () => {
      confined = await startConfinedTestServer();
      outside = confined.outside;
      await makeRepository(outside);
    });
    afterAll(async () => {
      await confined.close();
    });

    it('answers 403 for paths that lead outside', async () => {
      for (const [route, target] of [
        ['changes', 'escape'],
        ['diff', 'escape/a.txt'],
        ['changes', outside],
      ] as const) {
        const response = await fetch(
          `${confined.url}/api/git/${route}?${new URLSearchParams({ path: target })}`,
        );
        expect(response.status).toBe(403);
        expect(await response.json()).toEqual({
          detail: `path is outside the working directory: ${target}`,
        });
      }
    });

    it('answers 403 for a repository whose git directory lies outside', async () => {
      await mkdir(path.join(confined.dir, 'evil'));
      await writeFile(
        path.join(confined.dir, 'evil/.git'),
        `gitdir: ${path.join(outside, '.git')}\n`,
      );
      await writeFile(path.join(confined.dir, 'evil/a.txt'), 'changed\n');
      for (const [route, target] of [
        ['changes', 'evil'],
        ['diff', 'evil/a.txt'],
      ] as const) {
        const response = await fetch(
          `${confined.url}/api/git/${route}?${new URLSearchParams({ path: target })}`,
        );
        expect(response.status, `${route} ${await response.clone().text()}`).toBe(403);
        expect(((await response.json()) as { detail: string }).detail).toContain(
          'git directory is outside the working directory',
        );
      }
    });
  });
});
