import { randomUUID } from 'node:crypto';
import { WorkspaceError, workspaceForkOf } from '@agent-workspace/core';
import { RemoteAPIWorkspace, RuntimeApiClient } from '@agent-workspace/remote-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { SwarmRuntimeBackend } from '../backend/swarm-runtime-backend.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { runtimeApiServerFixture } from '../test-support/runtime-api-server-fixture.js';
import { rejectionOf, run } from './test-support/describe-remote-api-workspace-suite.js';

const context = remoteApiTestContext();
const swarm = remoteApiTestContext();

context.describe('RemoteAPIWorkspace snapshots (Docker backend)', () => {
  const runtimeApi = runtimeApiServerFixture(context, {
    backend: new DockerRuntimeBackend({ namespace: context.namespace }),
  });
  const onSwarm = runtimeApiServerFixture(swarm, {
    backend: new SwarmRuntimeBackend({ namespace: swarm.namespace }),
  });
  let runtime: RuntimeApiClient;
  const options = () => ({
    runtimeApiUrl: runtimeApi.server.url,
    runtimeApiKey: runtimeApi.apiKey,
    image: context.image,
  });

  beforeAll(() => {
    runtime = new RuntimeApiClient({ url: runtimeApi.server.url, apiKey: runtimeApi.apiKey });
  });
  afterAll(async () => {
    await runtime?.close();
  });

  it('snapshots a workspace, starts another from it, lists and removes the snapshot', async () => {
    const original = await RemoteAPIWorkspace.create({ ...options(), env: { TOKEN: 'hidden' } });
    let snapshotId = '';
    try {
      await run(
        original,
        'echo kept > kept.txt && git init -q && git add kept.txt && git -c user.name=t -c user.email=t@example.com commit -qm kept',
      );
      const snapshot = await original.snapshot({ name: 'kept' });
      snapshotId = snapshot.snapshotId;
      expect(snapshot).toMatchObject({
        sessionId: original.sessionId,
        image: context.image,
        name: 'kept',
      });
      expect(snapshot.sizeBytes).toBeGreaterThan(0);

      await using copy = await RemoteAPIWorkspace.create({
        ...options(),
        image: snapshot.image,
        fromSnapshot: snapshot.snapshotId,
      });
      expect(await run(copy, 'cat kept.txt && git log --format=%s')).toBe('kept\nkept\n');
      expect(await run(copy, 'printenv TOKEN || echo unset')).toBe('unset\n');

      expect(await runtime.listSnapshots()).toEqual([snapshot]);
      const inUse = await rejectionOf(runtime.removeSnapshot(snapshotId));
      expect(WorkspaceError.isInstance(inUse, 'WORKSPACE_OCCUPIED')).toBe(true);
    } finally {
      await original.close();
    }
    await runtime.removeSnapshot(snapshotId);
    expect(await runtime.listSnapshots()).toEqual([]);
    const gone = await rejectionOf(runtime.removeSnapshot(snapshotId));
    expect(WorkspaceError.isInstance(gone, 'NOT_FOUND')).toBe(true);
  });

  it('forks a workspace twice: both forks see its files and history, then live on their own', async () => {
    await using original = await RemoteAPIWorkspace.create(options());
    expect(workspaceForkOf(original)).toBeDefined();
    await run(
      original,
      'echo base > base.txt && git init -q && git add base.txt && git -c user.name=t -c user.email=t@example.com commit -qm base',
    );
    const forks = [await original.fork(), await original.fork()];
    try {
      for (const [index, fork] of forks.entries()) {
        expect(fork.sessionId).not.toBe(original.sessionId);
        expect(fork.forkedFrom).toMatchObject({ sessionId: original.sessionId });
        expect(await run(fork, 'cat base.txt && git log --format=%s')).toBe('base\nbase\n');
        await run(fork, `echo fork-${index} > own.txt`);
      }
      expect(await run(forks[1]!, 'cat own.txt')).toBe('fork-1\n');
      expect(await run(original, 'cat own.txt 2>/dev/null || echo none')).toBe('none\n');
    } finally {
      for (const fork of forks) {
        await fork.close();
        await runtime.removeSnapshot(fork.forkedFrom!.snapshotId);
      }
    }
  });

  it('refuses a bad fromSnapshot before any request, and an unknown one with INVALID_ARGUMENT', async () => {
    expect(() => new RemoteAPIWorkspace({ ...options(), fromSnapshot: 'nope' })).toThrow(
      /fromSnapshot/,
    );
    const unknown = await rejectionOf(
      RemoteAPIWorkspace.create({ ...options(), fromSnapshot: randomUUID().replaceAll('-', '') }),
    );
    expect(WorkspaceError.isInstance(unknown, 'INVALID_ARGUMENT')).toBe(true);
    expect((unknown as Error).message).toContain('from_snapshot');
  });

  it('reads the Swarm backend 501 as NOT_SUPPORTED', async () => {
    await using client = new RuntimeApiClient({
      url: onSwarm.server.url,
      apiKey: onSwarm.apiKey,
    });
    const refused = await rejectionOf(client.listSnapshots());
    expect(WorkspaceError.isInstance(refused, 'NOT_SUPPORTED')).toBe(true);
  });
});
