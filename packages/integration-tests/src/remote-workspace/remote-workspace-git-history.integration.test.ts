import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);

async function git(cwd: string, ...args: string[]): Promise<string> {
  const identity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];
  const { stdout } = await execFileAsync('git', [...identity, ...args], { cwd });
  return stdout.trim();
}

describe('RemoteWorkspace git history against the built agent-server', () => {
  let server: TestServer;
  let workspace: RemoteWorkspace;
  let first: string;
  let second: string;

  beforeAll(async () => {
    server = await startTestServer();
    workspace = new RemoteWorkspace({ host: server.url, workingDir: server.dir });
    const repo = path.join(server.dir, 'repo');
    await mkdir(repo);
    await git(repo, 'init', '-q', '-b', 'main');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    await writeFile(path.join(repo, 'b.txt'), 'two\n');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'first');
    first = await git(repo, 'rev-parse', 'HEAD');
    await writeFile(path.join(repo, 'a.txt'), 'one\nmore\n');
    await rm(path.join(repo, 'b.txt'));
    await git(repo, 'commit', '-q', '-am', 'second');
    second = await git(repo, 'rev-parse', 'HEAD');
    await writeFile(path.join(repo, 'a.txt'), 'now\n');
  });
  afterAll(async () => {
    await workspace?.close();
    await server?.close();
  });

  it('lists commits with camelCase fields and has_more as hasMore', async () => {
    const page = await workspace.gitCommits('repo', { limit: 1 });
    expect(page).toEqual({
      commits: [
        {
          sha: second,
          shortSha: expect.stringMatching(/^[0-9a-f]{7,}$/),
          subject: 'second',
          author: 'Test',
          timestamp: expect.any(String),
        },
      ],
      hasMore: true,
    });
    expect((await workspace.gitCommits('repo')).commits.map((c) => c.sha)).toEqual([second, first]);
  });

  it('reads what one commit changed, and a file as it changed it', async () => {
    expect(await workspace.gitCommitChanges('repo', second)).toEqual([
      { status: 'UPDATED', path: 'a.txt' },
      { status: 'DELETED', path: 'b.txt' },
    ]);
    expect(await workspace.gitDiff('repo/b.txt', { commit: second })).toEqual({
      original: 'two\n',
      modified: '',
    });
  });

  it('compares against an explicit ref', async () => {
    expect(await workspace.gitChanges('repo', { ref: first })).toEqual([
      { status: 'UPDATED', path: 'a.txt' },
      { status: 'DELETED', path: 'b.txt' },
    ]);
    expect(await workspace.gitChanges('repo', { ref: 'HEAD' })).toEqual([
      { status: 'UPDATED', path: 'a.txt' },
    ]);
    expect(await workspace.gitDiff('repo/a.txt', { ref: first })).toEqual({
      original: 'one\n',
      modified: 'now\n',
    });
  });

  it('refuses bad options before sending them and names the field', async () => {
    const cases: [string, () => Promise<unknown>][] = [
      ['ref', () => workspace.gitChanges('repo', { ref: '--output=/tmp/x' })],
      ['commit', () => workspace.gitDiff('repo/a.txt', { commit: 'HEAD' })],
      ['ref', () => workspace.gitDiff('repo/a.txt', { ref: 'HEAD', commit: first })],
      ['limit', () => workspace.gitCommits('repo', { limit: 201 })],
      ['sha', () => workspace.gitCommitChanges('repo', '-o')],
    ];
    for (const [field, call] of cases) {
      const error = await call().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
      expect((error as WorkspaceError).details).toMatchObject({ field });
    }
    const unknown = await workspace.gitCommitChanges('repo', 'deadbeef').catch((e: unknown) => e);
    expect(WorkspaceError.isInstance(unknown, 'GIT_ERROR'), String(unknown)).toBe(true);
  });
});
