import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t.dev', '-c', 'user.name=t', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

/** Entry names of a gzip tarball, read by the system's tar. */
function tarNames(archive: string): string[] {
  return execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n');
}

describe('RemoteWorkspace.archive (OpenHands GET /api/file/archive)', () => {
  let server: TestServer;
  let workspace: RemoteWorkspace;
  let local: string;
  let repo: string;

  beforeAll(async () => {
    server = await startTestServer({ confineToWorkingDir: true });
    workspace = new RemoteWorkspace({ host: server.url, workingDir: server.dir });
    local = await mkdtemp(path.join(os.tmpdir(), 'remote-archive-'));
    repo = path.join(server.dir, 'repo');
    await mkdir(path.join(repo, 'node_modules'), { recursive: true });
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    git(repo, 'init', '-q');
    git(repo, 'add', 'a.txt');
    git(repo, 'commit', '-q', '-m', 'init');
    await writeFile(path.join(repo, 'a.txt'), 'two\n');
    await writeFile(path.join(repo, 'node_modules', 'dep.js'), '//\n');
    await writeFile(path.join(repo, 'skip.log'), 'log\n');
  });
  afterAll(async () => {
    await workspace?.close();
    await server?.close();
    await rm(local, { recursive: true, force: true });
  });

  it('writes a git-delta patch with its base commit', async () => {
    const destination = path.join(local, 'out', 'repo.patch');
    const result = await workspace.archive('repo', destination, { baseRef: 'HEAD' });
    expect(result).toMatchObject({ success: true, baseCommit: git(repo, 'rev-parse', 'HEAD') });
    const patch = await readFile(destination, 'utf8');
    expect(patch).toContain('+two');
    expect(patch).toContain('skip.log');
    expect(patch).not.toContain('node_modules');
  });

  it('writes a tar.gz with exclude globs and the manifest', async () => {
    const destination = path.join(local, 'repo.tar.gz');
    const result = await workspace.archive(repo, destination, {
      format: 'tar.gz',
      exclude: ['*.log'],
    });
    expect(result.success).toBe(true);
    expect(result.fileSize).toBeGreaterThan(0);
    expect(tarNames(destination)).toEqual(['repo/', 'repo/a.txt', 'repo/archive_manifest.json']);
  });

  it('answers file problems as results and bad options as INVALID_ARGUMENT', async () => {
    const missing = await workspace.archive('nope', path.join(local, 'x.patch'));
    expect(missing.success).toBe(false);
    expect(missing.error).toMatch(/not found/);
    const plain = await workspace.archive('.', path.join(local, 'y.patch'), { baseRef: 'no-such' });
    expect(plain.success).toBe(false);
    const error = await workspace
      .archive('repo', path.join(local, 'z.patch'), { baseRef: '--output=x' })
      .catch((e: unknown) => e);
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details.field).toBe('baseRef');
  });
});
