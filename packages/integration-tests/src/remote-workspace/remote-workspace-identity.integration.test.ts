import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import {
  acquireWorkspace,
  executionSnapshot,
  LocalWorkspace,
  RemoteWorkspace,
  WorkspaceError,
  workspaceIdOf,
} from '@agent-workspace/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const API_KEY = 'identity-test-session-key';
const started: TestServer[] = [];

async function start(options: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const server = await startTestServer(options);
  started.push(server);
  return server;
}

let leaseDir: string;
beforeAll(async () => {
  leaseDir = await mkdtemp(path.join(os.tmpdir(), 'remote-identity-leases-'));
});
afterAll(async () => {
  await Promise.all(started.map((server) => server.close()));
  await rm(leaseDir, { recursive: true, force: true });
});

describe('RemoteWorkspace.identity()', () => {
  it('asks the server: its id, anchor and projection, this workspace cwd and access mode', async () => {
    const t = await start({ sessionApiKeys: [API_KEY] });
    await using remote = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: API_KEY });
    await using local = new LocalWorkspace({ workingDir: t.dir });
    const identity = await remote.identity();
    // The server runs on this machine: it names the directory as a LocalWorkspace does.
    expect(identity).toEqual(await local.identity());
    expect(identity.projectionKind).toBe('canonical');

    await using lease = await acquireWorkspace(remote, {
      holderId: 'remote-reader',
      mode: 'shared_read',
      leaseDir,
    });
    expect(lease.workspaceId).toBe(identity.workspaceId);
    expect((await remote.identity()).accessMode).toBe('shared_read');
    // The local object on the same directory shares the id, so a writer there is refused.
    const refused = await acquireWorkspace(local, {
      holderId: 'local-writer',
      mode: 'exclusive_write',
      leaseDir,
    }).catch((error: unknown) => error);
    expect(WorkspaceError.isInstance(refused, 'WORKSPACE_OCCUPIED')).toBe(true);
    expect((refused as WorkspaceError).details.holderId).toBe('remote-reader');
    const snapshot = await executionSnapshot(remote, { leaseDir });
    expect(snapshot.occupancy.map((entry) => entry.holderId)).toEqual(['remote-reader']);
  });

  it('keeps its own workingDir as cwd under the server directory', async () => {
    const t = await start({ sessionApiKeys: [API_KEY] });
    await using remote = new RemoteWorkspace({
      host: t.url,
      workingDir: `${t.dir}/sub`,
      apiKey: API_KEY,
    });
    const identity = await remote.identity();
    expect(identity).toMatchObject({ anchor: t.dir, executionRoot: t.dir, cwd: `${t.dir}/sub` });
  });

  it('falls back to an id from the host against a server without the route (OpenHands)', async () => {
    const t = await start({ sessionApiKeys: [API_KEY], extensions: false });
    await using remote = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: API_KEY });
    expect(await remote.identity()).toEqual({
      workspaceId: workspaceIdOf({ host: remote.host, kind: 'remote', anchor: t.dir }),
      anchor: t.dir,
      executionRoot: t.dir,
      cwd: t.dir,
      projectionKind: 'canonical',
      accessMode: 'exclusive_write',
    });
    expect(remote.host).not.toBe(os.hostname());
  });

  it('reports an authentication failure as such', async () => {
    const t = await start({ sessionApiKeys: [API_KEY] });
    await using remote = new RemoteWorkspace({ host: t.url, workingDir: t.dir, apiKey: 'wrong' });
    const error = await remote.identity().catch((caught: unknown) => caught);
    expect(WorkspaceError.isInstance(error, 'AUTHENTICATION_ERROR')).toBe(true);
  });
});
