import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import { rejectionOf } from '@agent-workspace/core/testing';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeTree } from '../test-support/describe-tree.js';

/** A tree without links: nested and empty directories, an executable, spaces, a 3 MiB file. */
async function makeTree(root: string): Promise<void> {
  await mkdir(path.join(root, 'nested/deeper'), { recursive: true });
  await mkdir(path.join(root, 'empty'));
  await mkdir(path.join(root, 'node_modules/pkg'), { recursive: true });
  await writeFile(path.join(root, 'node_modules/pkg/index.js'), 'module.exports = 1;\n');
  await writeFile(path.join(root, 'nested/deeper/tool.sh'), '#!/bin/sh\necho hi\n');
  await chmod(path.join(root, 'nested/deeper/tool.sh'), 0o755);
  await writeFile(path.join(root, "it's a name with spaces"), 'quoted\n');
  await writeFile(path.join(root, 'large.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
  for (let index = 0; index < 30; index += 1) {
    await writeFile(path.join(root, `nested/f${index}.txt`), `${index}\n`);
  }
}

/** Runs git in `cwd` with a fixed identity. */
function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    stdio: 'ignore',
  });
}

/**
 * An HTTP proxy in front of `target` that records each request's method and path, and answers
 * FastAPI's 404 itself for the paths in `missing` (a server without those routes) and cuts
 * the connection after `cut`'s byte count of a path's answer.
 */
async function startRecordingProxy(target: string) {
  const requests: string[] = [];
  const missing = new Set<string>();
  const cut = new Map<string, number>();
  const upstream = new URL(target);
  const proxy = http.createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', target).pathname;
    requests.push(`${request.method} ${pathname}`);
    if (missing.has(pathname)) {
      request.resume();
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"detail":"Not Found"}');
      return;
    }
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        const limit = cut.get(pathname);
        if (limit === undefined) {
          answer.pipe(response);
          return;
        }
        let sent = 0;
        answer.on('end', () => response.end());
        answer.on('data', (chunk: Buffer) => {
          if (sent >= limit) return;
          sent += chunk.length;
          response.write(sent <= limit ? chunk : chunk.subarray(0, chunk.length - (sent - limit)));
          if (sent >= limit) setTimeout(() => response.socket?.destroy(), 50);
        });
      },
    );
    forwarded.on('error', () => response.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    missing,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

const ARCHIVE = `GET ${AGENT_SERVER_ROUTES.fileArchive}`;
const FILE_DOWNLOAD = `GET ${AGENT_SERVER_ROUTES.fileDownload}`;

describe('RemoteWorkspace.downloadDirectory against a plain OpenHands server', () => {
  let plain: TestServer;
  let ours: TestServer;
  let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
  let workspace: RemoteWorkspace;
  let local: string;

  beforeAll(async () => {
    local = await mkdtemp(path.join(os.tmpdir(), 'openhands-archive-download-'));
    plain = await startTestServer({ extensions: false });
    ours = await startTestServer();
    proxy = await startRecordingProxy(plain.url);
    workspace = new RemoteWorkspace({ host: proxy.url, workingDir: plain.dir });
  });
  afterAll(async () => {
    await workspace?.close();
    await proxy?.close();
    await plain?.close();
    await ours?.close();
    if (local) await rm(local, { recursive: true, force: true });
  });
  beforeEach(() => {
    proxy.requests.length = 0;
    proxy.missing.clear();
    proxy.cut.clear();
  });

  it('uses one tar.gz archive request and yields the same tree as our server', async () => {
    await makeTree(path.join(plain.dir, 'project'));
    await makeTree(path.join(ours.dir, 'project'));
    const back = path.join(local, 'plain');
    const down = await workspace.downloadDirectory('project', back);
    expect(down).toMatchObject({ success: true, files: 34 });
    expect(proxy.requests.filter((line) => line === ARCHIVE)).toHaveLength(1);
    expect(proxy.requests).not.toContain(FILE_DOWNLOAD);
    // Default excludes are off (node_modules/ comes along) and the manifest is left out.
    expect(await describeTree(back)).toEqual(await describeTree(path.join(plain.dir, 'project')));

    await using extended = new RemoteWorkspace({ host: ours.url, workingDir: ours.dir });
    const viaOurs = path.join(local, 'ours');
    expect(await extended.downloadDirectory('project', viaOurs)).toMatchObject({
      success: true,
      files: 34,
      bytes: down.bytes,
    });
    expect(await describeTree(back)).toEqual(await describeTree(viaOurs));
  });

  it("keeps the directory's own archive_manifest.json", async () => {
    const source = path.join(plain.dir, 'with-manifest');
    await makeTree(source);
    await writeFile(path.join(source, 'archive_manifest.json'), '{"mine":true}\n');
    const back = path.join(local, 'with-manifest');
    expect(await workspace.downloadDirectory('with-manifest', back)).toMatchObject({
      success: true,
      files: 35,
    });
    expect(await readFile(path.join(back, 'archive_manifest.json'), 'utf8')).toBe(
      '{"mine":true}\n',
    );
    expect(proxy.requests.filter((line) => line === ARCHIVE)).toHaveLength(1);
  });

  it('copies a repository without its .git/config, as OpenHands withholds it', async () => {
    const repository = path.join(plain.dir, 'repository');
    await makeTree(repository);
    git(repository, 'init', '-q');
    git(repository, 'add', '.');
    git(repository, 'commit', '-qm', 'first');
    const back = path.join(local, 'repository');
    expect(await workspace.downloadDirectory('repository', back)).toMatchObject({
      success: true,
    });
    expect(proxy.requests.filter((line) => line === ARCHIVE)).toHaveLength(1);
    expect(await readFile(path.join(back, 'nested/f7.txt'), 'utf8')).toBe('7\n');
    expect(await readFile(path.join(back, '.git/HEAD'), 'utf8')).toMatch(/^ref: refs\/heads\//);
    await expect(lstat(path.join(back, '.git/config'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(path.join(back, 'archive_manifest.json'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('falls back to the listing when the server archives a repository below the directory', async () => {
    const outer = path.join(plain.dir, 'outer');
    await mkdir(path.join(outer, 'sub/repo'), { recursive: true });
    await writeFile(path.join(outer, 'top.txt'), 'top\n');
    await writeFile(path.join(outer, 'sub/repo/inside.txt'), 'inside\n');
    git(path.join(outer, 'sub/repo'), 'init', '-q');
    git(path.join(outer, 'sub/repo'), 'add', '.');
    git(path.join(outer, 'sub/repo'), 'commit', '-qm', 'first');
    const back = path.join(local, 'outer');
    expect(await workspace.downloadDirectory('outer', back)).toMatchObject({ success: true });
    expect(proxy.requests.filter((line) => line === ARCHIVE)).toHaveLength(1);
    expect(proxy.requests).toContain(FILE_DOWNLOAD);
    // The listing copies everything, .git/config included.
    expect(await describeTree(back)).toEqual(await describeTree(outer));
  });

  it('falls back to the listing, without an archive request, when the directory holds a link', async () => {
    const source = path.join(plain.dir, 'linked');
    await makeTree(source);
    await symlink('nested/deeper/tool.sh', path.join(source, 'tool'));
    const back = path.join(local, 'linked');
    expect(await workspace.downloadDirectory('linked', back)).toMatchObject({ success: true });
    expect(proxy.requests).not.toContain(ARCHIVE);
    expect(await describeTree(back)).toEqual(await describeTree(source));
  });

  it('falls back to the listing when the server has no archive route (404)', async () => {
    const source = path.join(plain.dir, 'older');
    await makeTree(source);
    proxy.missing.add(AGENT_SERVER_ROUTES.fileArchive);
    const back = path.join(local, 'older');
    expect(await workspace.downloadDirectory('older', back)).toMatchObject({
      success: true,
      files: 34,
    });
    expect(proxy.requests.filter((line) => line === ARCHIVE)).toHaveLength(1);
    expect(proxy.requests).toContain(FILE_DOWNLOAD);
    expect(await describeTree(back)).toEqual(await describeTree(source));
  });

  it('throws CONNECTION_ERROR when the archive is cut off midway', async () => {
    await makeTree(path.join(plain.dir, 'cut'));
    proxy.cut.set(AGENT_SERVER_ROUTES.fileArchive, 1024);
    const failure = await rejectionOf(workspace.downloadDirectory('cut', path.join(local, 'cut')));
    expect(WorkspaceError.isInstance(failure, 'CONNECTION_ERROR')).toBe(true);
  });

  it('reports a missing directory as a result', async () => {
    const missing = await workspace.downloadDirectory('nope', path.join(local, 'nope'));
    expect(missing).toMatchObject({ success: false, error: expect.stringMatching(/nope/) });
  });
});
