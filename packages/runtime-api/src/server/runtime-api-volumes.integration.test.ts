import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RemoteAPIWorkspace } from '@agent-workspace/remote-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { SHARED_VOLUME_LABEL, sharedVolumeName } from '../backend/session-volumes.js';
import { pollUntil } from '../test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { runtimeApiServerFixture } from '../test-support/runtime-api-server-fixture.js';
import { runInSession } from './test-support/run-in-session.js';
import { issueLocs, pooledStartBody } from './test-support/runtime-api-call.js';

const context = remoteApiTestContext();

/**
 * Removes the namespace's shared volumes (their sessions are stopped by then), whatever the
 * shared clean-up (which also lists swarm services) manages.
 */
async function removeSharedVolumes(): Promise<void> {
  if (context.skipReason) return;
  const filters = { label: [`${RUNTIME_LABELS.namespace}=${context.namespace}`] };
  const { Volumes } = await context.docker.listVolumes({ filters });
  await Promise.all(
    (Volumes ?? []).map(({ Name }) =>
      context.docker
        .getVolume(Name)
        .remove()
        .catch(() => {}),
    ),
  );
}

context.describe('Runtime API volumes (Docker backend, real agent-server image)', () => {
  /** Host directory the server allows binding; its `allowed/` child is the allowed source. */
  let root = '';
  const allowedDir = () => path.join(root, 'allowed');
  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'runtime-api-volumes-')));
    await mkdir(path.join(root, 'allowed', 'below'), { recursive: true });
    await writeFile(path.join(root, 'allowed', 'hello.txt'), 'from the host\n');
    // The agent-server runs as uid 10001: the tree must be readable by others.
    await chmod(root, 0o755);
    await chmod(path.join(root, 'allowed'), 0o755);
    await chmod(path.join(root, 'allowed', 'hello.txt'), 0o644);
  });
  afterAll(async () => {
    await removeSharedVolumes();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const runtimeApi = runtimeApiServerFixture(context, {
    backend: new DockerRuntimeBackend({ namespace: context.namespace }),
    // Read when the server starts, after the directory exists.
    get allowedBindSources() {
      return [allowedDir()];
    },
  });
  const { api, ready } = runtimeApi;
  const start = (sessionId: string, volumes: unknown[]) =>
    api('/start', { body: { image: context.image, session_id: sessionId, volumes } });

  it('mounts an allowed host directory read-only: the session reads it and cannot write', async () => {
    const sessionId = `bind-${randomUUID()}`;
    const volumes = [{ type: 'bind', source: allowedDir(), target: '/mnt/host', read_only: true }];
    const started = await start(sessionId, volumes);
    expect(started.status).toBe(201);
    await ready(sessionId);
    const read = await runInSession(started, 'cat /mnt/host/hello.txt');
    expect([read.exitCode, read.stdout]).toEqual([0, 'from the host\n']);
    const write = await runInSession(started, 'touch /mnt/host/written 2>&1');
    expect(write.exitCode).not.toBe(0);
    expect(write.stdout).toContain('Read-only file system');

    // The same volumes answer the session again; other volumes are a conflict.
    expect((await start(sessionId, volumes)).status).toBe(200);
    const other = await start(sessionId, [{ ...volumes[0], read_only: false }]);
    expect(other.status).toBe(409);
    expect(other.json.detail).toContain('other volumes');
    expect(
      (await api('/start', { body: { image: context.image, session_id: sessionId } })).status,
    ).toBe(409);
    await api('/stop', { body: { runtime_id: started.json.runtime_id } });
  });

  it('takes camelCase volumes from a RemoteAPIWorkspace', async () => {
    const name = `client-${randomUUID().slice(0, 8)}`;
    await using workspace = await RemoteAPIWorkspace.create({
      runtimeApiUrl: runtimeApi.server.url,
      runtimeApiKey: runtimeApi.apiKey,
      image: context.image,
      volumes: [
        { type: 'bind', source: allowedDir(), target: '/mnt/host', readOnly: true },
        { type: 'volume', name, target: '/home/agent' },
      ],
    });
    const read = await workspace.executeCommand('cat /mnt/host/hello.txt');
    expect(read.stdout).toBe('from the host\n');
    expect((await workspace.executeCommand('touch /mnt/host/x')).exitCode).not.toBe(0);
    expect((await workspace.executeCommand('touch /home/agent/x')).exitCode).toBe(0);
    const engineName = sharedVolumeName(context.namespace, name);
    expect((await context.docker.getVolume(engineName).inspect()).Name).toBe(engineName);
  });

  it('refuses a bind source the operator does not allow exactly, and a target hiding the working directory', async () => {
    for (const source of ['/etc', path.join(allowedDir(), 'below'), root]) {
      const refused = await start(`refused-${randomUUID()}`, [
        { type: 'volume', name: 'fine', target: '/mnt/fine' },
        { type: 'bind', source, target: '/mnt/host' },
      ]);
      expect(refused.status).toBe(422);
      expect(issueLocs(refused)).toEqual([['body', 'volumes', 1, 'source']]);
      expect(refused.text).toContain('--allow-bind');
    }
    const hiding = await start(`hiding-${randomUUID()}`, [
      { type: 'volume', name: 'fine', target: '/workspace' },
    ]);
    expect(hiding.status).toBe(422);
    expect(issueLocs(hiding)).toEqual([['body', 'volumes', 0, 'target']]);
    // Nothing was started or created for the refused starts.
    const { Volumes } = await context.docker.listVolumes({
      filters: { name: [sharedVolumeName(context.namespace, 'fine')] },
    });
    expect(Volumes ?? []).toEqual([]);
  });

  it('shares a named volume of the namespace between sessions, and keeps it when they stop', async () => {
    const name = `shared-${randomUUID().slice(0, 8)}`;
    // The image's home of the agent's user: a new volume takes its files and owner.
    const volumes = [{ type: 'volume', name, target: '/home/agent' }];
    const writer = await start(`writer-${randomUUID()}`, volumes);
    const reader = await start(`reader-${randomUUID()}`, [{ ...volumes[0], read_only: true }]);
    expect([writer.status, reader.status]).toEqual([201, 201]);
    await Promise.all([ready(writer.json.session_id), ready(reader.json.session_id)]);

    const written = await runInSession(writer, 'echo shared > /home/agent/note.txt');
    expect(written.exitCode).toBe(0);
    const read = await runInSession(reader, 'cat /home/agent/note.txt');
    expect([read.exitCode, read.stdout]).toEqual([0, 'shared\n']);
    expect((await runInSession(reader, 'touch /home/agent/other')).exitCode).not.toBe(0);

    const engineName = sharedVolumeName(context.namespace, name);
    const volume = await context.docker.getVolume(engineName).inspect();
    expect(volume.Labels).toEqual({
      [RUNTIME_LABELS.namespace]: context.namespace,
      [SHARED_VOLUME_LABEL]: name,
    });
    for (const session of [writer, reader]) {
      const stopped = await api('/stop', { body: { runtime_id: session.json.runtime_id } });
      expect(stopped.status).toBe(200);
    }
    // Stopping its sessions left the shared volume and its files.
    const again = await start(`again-${randomUUID()}`, volumes);
    expect(again.status).toBe(201);
    await ready(again.json.session_id);
    expect((await runInSession(again, 'cat /home/agent/note.txt')).stdout).toBe('shared\n');
    await api('/stop', { body: { runtime_id: again.json.runtime_id } });
    expect((await context.docker.getVolume(engineName).inspect()).Name).toBe(engineName);
    // The test's namespace clean-up removes it (it carries the namespace label).
  });
});

context.describe('Runtime API volumes with a warm pool (Docker backend)', () => {
  const runtimeApi = runtimeApiServerFixture(context, {
    backend: new DockerRuntimeBackend({ namespace: context.namespace }),
    warmPool: [{ image: context.image, count: 1 }],
    // A loaded machine can take over the default second to answer one probe.
    readinessTimeoutMs: 5_000,
  });
  const { api } = runtimeApi;
  afterAll(removeSharedVolumes);

  it('starts a session with volumes cold, leaving the warm sandbox in the pool', async () => {
    const pool = () =>
      pollUntil(
        () => api('/pool'),
        (answer) => answer.json?.pools?.[0]?.warm === 1 && answer.json.pools[0].starting === 0,
        { what: 'one warm sandbox' },
      );
    await pool();
    const sessionId = `cold-${randomUUID()}`;
    const volumes = [{ type: 'volume', name: 'cold', target: '/mnt/cold' }];
    const started = await api('/start', {
      body: { ...pooledStartBody(context.image, sessionId), volumes },
    });
    expect(started.status, started.text).toBe(201);
    const [container] = await context.docker.listContainers({
      filters: { label: [`${RUNTIME_LABELS.runtimeId}=${started.json.runtime_id}`] },
    });
    expect(container?.Labels[RUNTIME_LABELS.pooled]).toBeUndefined();
    expect(container?.Mounts).toContainEqual(
      expect.objectContaining({ Name: sharedVolumeName(context.namespace, 'cold') }),
    );
    const stats = await pool();
    expect(stats.json.pools[0].claimed_total).toBe(0);
    await api('/stop', { body: { runtime_id: started.json.runtime_id } });
  });
});
