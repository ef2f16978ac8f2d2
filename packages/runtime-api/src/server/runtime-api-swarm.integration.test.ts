import { randomUUID } from 'node:crypto';
import { RemoteWorkspace } from '@agent-workspace/core';
import { expect, it } from 'vitest';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { SHARED_VOLUME_LABEL, sharedVolumeName } from '../backend/session-volumes.js';
import { SwarmRuntimeBackend } from '../backend/swarm-runtime-backend.js';
import { keyedStatus } from '../test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { runtimeApiServerFixture } from '../test-support/runtime-api-server-fixture.js';

const context = remoteApiTestContext();

context.describe('Runtime API server on a Docker Swarm (single-node)', () => {
  const runtimeApi = runtimeApiServerFixture(context, {
    backend: new SwarmRuntimeBackend({ namespace: context.namespace }),
    resources: { memoryBytes: 512 * 1024 * 1024 },
    callTimeoutMs: 120_000,
  });
  const { ready } = runtimeApi;
  const api = (path: string, body?: unknown) => runtimeApi.api(path, { body });

  it('starts with an address, pauses, resumes on a new address with the same key, and stops', async () => {
    const sessionId = `swarm-${randomUUID()}`;
    const started = await api('/start', { image: context.image, session_id: sessionId });
    expect(started.status).toBe(201);
    // The OpenHands client refuses a /start answer without a url.
    expect(started.json.url).toMatch(/^http:\/\/[^/]+:\d+$/);
    const first = await ready(sessionId);
    expect(await keyedStatus(first.json.url, started.json.session_api_key)).toBe(200);

    const body = { runtime_id: started.json.runtime_id };
    const paused = await api('/pause', body);
    expect(paused.json).toMatchObject({ status: 'paused', pod_status: 'pending', url: '' });
    const resumed = await api('/resume', body);
    expect(resumed.status).toBe(200);
    expect(resumed.json).toMatchObject({ status: 'running', runtime_id: body.runtime_id });
    expect(resumed.json.url).toMatch(/^http:\/\/[^/]+:\d+$/);
    const again = await ready(sessionId);
    expect(again.json.session_api_key).toBe(started.json.session_api_key);
    expect(await keyedStatus(again.json.url, again.json.session_api_key)).toBe(200);

    expect((await api('/stop', body)).json).toEqual({ ...body, status: 'stopped' });
    expect((await api(`/sessions/${sessionId}`)).status).toBe(404);
    expect(
      await context.docker.listServices({
        filters: { label: [`${RUNTIME_LABELS.namespace}=${context.namespace}`] },
      }),
    ).toEqual([]);
  });

  it('mounts a shared named volume, which its stop leaves (only the session volume goes)', async () => {
    const sessionId = `swarm-volume-${randomUUID()}`;
    const name = `swarm-${randomUUID().slice(0, 8)}`;
    const volumes = [{ type: 'volume', name, target: '/home/agent' }];
    const started = await api('/start', { image: context.image, session_id: sessionId, volumes });
    expect(started.status).toBe(201);
    const { json } = await ready(sessionId);
    const workspace = new RemoteWorkspace({
      host: json.url,
      workingDir: '/workspace',
      apiKey: started.json.session_api_key,
    });
    try {
      expect((await workspace.executeCommand('echo kept > /home/agent/note.txt')).exitCode).toBe(0);
    } finally {
      await workspace.close();
    }
    const engineName = sharedVolumeName(context.namespace, name);
    expect((await context.docker.getVolume(engineName).inspect()).Labels).toEqual({
      [RUNTIME_LABELS.namespace]: context.namespace,
      [SHARED_VOLUME_LABEL]: name,
    });
    const body = { runtime_id: started.json.runtime_id };
    expect((await api('/stop', body)).json).toEqual({ ...body, status: 'stopped' });
    const { Volumes } = await context.docker.listVolumes({
      filters: { label: [`${RUNTIME_LABELS.namespace}=${context.namespace}`] },
    });
    expect((Volumes ?? []).map(({ Name }) => Name)).toEqual([engineName]);
  });
});
