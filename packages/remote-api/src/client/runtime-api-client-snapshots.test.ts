import { WorkspaceError } from '@agent-workspace/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RuntimeApiClient } from './runtime-api-client.js';
import { HttpPeerDouble } from './test-support/http-peer-double.js';

const API_KEY = 'runtime-key-0123456789abcdef';
const SNAPSHOT_ID = '0123456789abcdef0123456789abcdef';
const snapshot = {
  snapshot_id: SNAPSHOT_ID,
  session_id: 'agent-server-1',
  image: 'img',
  name: 'first',
  created_at: '2026-01-01T00:00:00.000Z',
  size_bytes: 1024,
};

/** The `WorkspaceError` `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<WorkspaceError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!WorkspaceError.isInstance(error)) throw new Error(`expected a WorkspaceError, got ${error}`);
  return error;
}

describe('RuntimeApiClient snapshots', () => {
  let peer: HttpPeerDouble;
  let client: RuntimeApiClient;

  beforeAll(async () => {
    peer = await HttpPeerDouble.start(() => ({ status: 201, json: snapshot }));
    client = new RuntimeApiClient({ url: peer.url, apiKey: API_KEY });
  });
  afterAll(async () => {
    await client.close();
    await peer.close();
  });
  beforeEach(() => {
    peer.requests.length = 0;
  });

  it('takes, lists and removes snapshots on their routes, in camelCase', async () => {
    peer.handler = () => ({ status: 201, json: snapshot });
    expect(await client.takeSnapshot('a'.repeat(32), { name: 'first' })).toEqual({
      snapshotId: SNAPSHOT_ID,
      sessionId: 'agent-server-1',
      image: 'img',
      name: 'first',
      createdAt: snapshot.created_at,
      sizeBytes: 1024,
    });
    await client.takeSnapshot('b'.repeat(32));
    peer.handler = () => ({ status: 200, json: { snapshots: [snapshot] } });
    expect((await client.listSnapshots()).map(({ snapshotId }) => snapshotId)).toEqual([
      SNAPSHOT_ID,
    ]);
    peer.handler = () => ({ status: 200, json: { snapshot_id: SNAPSHOT_ID, status: 'removed' } });
    await client.removeSnapshot(SNAPSHOT_ID);
    expect(peer.requests.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'POST /snapshots',
      'POST /snapshots',
      'GET /snapshots',
      `DELETE /snapshots/${SNAPSHOT_ID}`,
    ]);
    expect(peer.requests.slice(0, 2).map(({ body }) => JSON.parse(body))).toEqual([
      { runtime_id: 'a'.repeat(32), name: 'first' },
      { runtime_id: 'b'.repeat(32) },
    ]);
  });

  it('reads 409 as WORKSPACE_OCCUPIED, 501 as NOT_SUPPORTED, 404 and 422 as the other routes do', async () => {
    const cases: [number, string][] = [
      [409, 'WORKSPACE_OCCUPIED'],
      [501, 'NOT_SUPPORTED'],
      [404, 'NOT_FOUND'],
      [422, 'INVALID_ARGUMENT'],
    ];
    for (const [status, code] of cases) {
      peer.handler = () => ({ status, json: { detail: `refused with ${status}` } });
      const error = await rejection(client.removeSnapshot(SNAPSHOT_ID));
      expect([error.code, error.message]).toEqual([code, expect.stringContaining(`${status}`)]);
    }
  });
});
