import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { directoryTransferOf, RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import { rejectionOf } from '@agent-workspace/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTree } from '../test-support/describe-tree.js';

const API_KEY = 'directory-transfer-key';

/** A tree with nested and empty directories, an executable, a link and `count` small files. */
async function makeTree(root: string, count: number): Promise<void> {
  await mkdir(path.join(root, 'nested/deeper'), { recursive: true });
  await mkdir(path.join(root, 'empty'));
  await writeFile(path.join(root, 'nested/deeper/tool.sh'), '#!/bin/sh\necho hi\n');
  await chmod(path.join(root, 'nested/deeper/tool.sh'), 0o755);
  await writeFile(path.join(root, "it's a name with spaces"), 'quoted\n');
  await symlink('nested/deeper/tool.sh', path.join(root, 'tool'));
  for (let start = 0; start < count; start += 1000) {
    const dir = path.join(root, `many/${start / 1000}`);
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: Math.min(1000, count - start) }, (_, index) =>
        writeFile(path.join(dir, `f${index}.txt`), `${start + index}\n`),
      ),
    );
  }
}

let local: string;
beforeAll(async () => {
  local = await mkdtemp(path.join(os.tmpdir(), 'remote-directory-transfer-'));
  await makeTree(path.join(local, 'source'), 10_000);
}, 120_000);
afterAll(async () => {
  await rm(local, { recursive: true, force: true });
});

describe('RemoteWorkspace directory transfer (directory-archive extension)', () => {
  let server: TestServer;
  let workspace: RemoteWorkspace;

  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [API_KEY], confineToWorkingDir: true });
    workspace = new RemoteWorkspace({ host: server.url, workingDir: server.dir, apiKey: API_KEY });
  });
  afterAll(async () => {
    await workspace?.close();
    await server?.close();
  });

  it('round-trips 10 000 files, directories, a link and modes in one stream each way', async () => {
    expect(directoryTransferOf(workspace)).toBe(workspace);
    const source = path.join(local, 'source');
    const up = await workspace.uploadDirectory(source, 'project');
    expect(up).toMatchObject({ success: true, files: 10_002 });
    expect(up.destinationPath).toBe(path.join(server.dir, 'project'));
    expect(await describeTree(path.join(server.dir, 'project'))).toEqual(
      await describeTree(source),
    );

    const back = path.join(local, 'back');
    const down = await workspace.downloadDirectory('project', back);
    expect(down).toMatchObject({ success: true, files: 10_002, bytes: up.bytes });
    expect(await describeTree(back)).toEqual(await describeTree(source));
  }, 180_000);

  it('answers file problems as results', async () => {
    const missing = await workspace.downloadDirectory('nope', path.join(local, 'nope'));
    expect(missing).toMatchObject({ success: false, error: expect.stringMatching(/not found/) });
    const outside = await workspace.uploadDirectory(path.join(local, 'source'), '/etc/x');
    expect(outside).toMatchObject({ success: false, error: expect.stringMatching(/HTTP 403/) });
    const noSource = await workspace.uploadDirectory(path.join(local, 'missing'), 'x');
    expect(noSource).toMatchObject({
      success: false,
      error: expect.stringMatching(/does not exist/),
    });
  });

  it('throws AUTHENTICATION_ERROR with a wrong key and ABORTED on an aborted signal', async () => {
    await using wrong = new RemoteWorkspace({
      host: server.url,
      workingDir: server.dir,
      apiKey: 'no',
    });
    const refused = await rejectionOf(wrong.downloadDirectory('.', path.join(local, 'denied')));
    expect(WorkspaceError.isInstance(refused, 'AUTHENTICATION_ERROR')).toBe(true);
    const aborted = await rejectionOf(
      workspace.uploadDirectory(path.join(local, 'source'), 'aborted', {
        signal: AbortSignal.abort(),
      }),
    );
    expect(WorkspaceError.isInstance(aborted, 'ABORTED')).toBe(true);
  });
});

describe('RemoteWorkspace directory transfer against a plain OpenHands protocol server', () => {
  let server: TestServer;
  let workspace: RemoteWorkspace;

  beforeAll(async () => {
    server = await startTestServer({ extensions: false });
    workspace = new RemoteWorkspace({ host: server.url, workingDir: server.dir });
    await makeTree(path.join(local, 'small'), 50);
  });
  afterAll(async () => {
    await workspace?.close();
    await server?.close();
  });

  it('falls back to file-by-file upload and a listed download, with the same tree', async () => {
    const source = path.join(local, 'small');
    const up = await workspace.uploadDirectory(source, 'project');
    expect(up).toMatchObject({ success: true, files: 52 });
    expect(await describeTree(path.join(server.dir, 'project'))).toEqual(
      await describeTree(source),
    );

    const back = path.join(local, 'small-back');
    const down = await workspace.downloadDirectory('project', back);
    expect(down).toMatchObject({ success: true, files: 52, bytes: up.bytes });
    expect(await describeTree(back)).toEqual(await describeTree(source));
  });
});
