import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import { rejectionOf } from '@agent-workspace/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const API_KEY = 'create-directory-test-key';

describe('RemoteWorkspace.createDirectory against the agent-server', () => {
  let server: TestServer;
  let confined: TestServer;
  let workspace: RemoteWorkspace;
  beforeAll(async () => {
    server = await startTestServer({ sessionApiKeys: [API_KEY] });
    confined = await startTestServer({ sessionApiKeys: [API_KEY], confineToWorkingDir: true });
    workspace = new RemoteWorkspace({ host: server.url, workingDir: server.dir, apiKey: API_KEY });
  });
  afterAll(async () => {
    await workspace?.close();
    await server?.close();
    await confined?.close();
  });

  it('makes a directory and its parents, relative to workingDir, idempotently', async () => {
    await workspace.createDirectory('a/b/c');
    await workspace.createDirectory(path.join(server.dir, 'a/b/c'));
    expect((await stat(path.join(server.dir, 'a/b/c'))).isDirectory()).toBe(true);
  });

  it('refuses a file in the way with INVALID_ARGUMENT naming path', async () => {
    await writeFile(path.join(server.dir, 'file.txt'), 'x');
    const error = await rejectionOf(workspace.createDirectory('file.txt/below'));
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details).toMatchObject({ field: 'path', status: 400 });
  });

  it("refuses a path outside a confined server's working directory with FORBIDDEN", async () => {
    await using remote = new RemoteWorkspace({
      host: confined.url,
      workingDir: confined.dir,
      apiKey: API_KEY,
    });
    const error = await rejectionOf(remote.createDirectory('../escaped'));
    expect(WorkspaceError.isInstance(error, 'FORBIDDEN')).toBe(true);
    await expect(stat(path.join(confined.dir, '..', 'escaped'))).rejects.toThrow(/ENOENT/);
  });
});
