import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { keyedStatus, pollUntil } from '../test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import type { RuntimeApiServer } from './create-runtime-api-server.js';
import { deriveClaimedKey, deriveSandboxKey } from './session-key.js';
import { dockerRuntimeApiServers } from './test-support/docker-runtime-api-servers.js';
import { EngineProxy } from './test-support/engine-proxy.js';
import { call, pooledStartBody, runOnAgentServer } from './test-support/runtime-api-call.js';
import { warmSandboxSpec } from './warm-sandbox-spec.js';

const context = remoteApiTestContext();
const { docker, image, namespace } = context;
const KEY = `runtime-api-key-${randomUUID()}`;
const SECRET = `session-secret-${randomUUID()}`;

const pooledBody = (sessionId: string) => pooledStartBody(image, sessionId);

context.describe('Runtime API warm pool claims cut short by a crash (Docker, real engine)', () => {
  const proxies: EngineProxy[] = [];
  const servers = dockerRuntimeApiServers({
    apiKey: KEY,
    sessionKeySecret: SECRET,
    image,
    namespace,
    // Passes run on demand; a loaded machine can take over a second to answer one probe.
    defaults: { idleCheckIntervalSeconds: 3600, readinessTimeoutMs: 5_000 },
  });
  const api = (server: RuntimeApiServer, path: string, body?: unknown) =>
    call(server.url, path, { apiKey: KEY, body });
  const initState = async (url: string) => (await call(url, '/api/init')).json?.state;
  /** The container of `runtimeId` as the engine has it (not through any proxy). */
  const containerOf = async (runtimeId: string) => {
    const filters = { label: [`${RUNTIME_LABELS.runtimeId}=${runtimeId}`] };
    const [container] = await docker.listContainers({ all: true, filters });
    return container && (await docker.getContainer(container.Id).inspect());
  };
  /** Waits until `server` has a warm sandbox, and answers it with its labels' key material. */
  const oneWarm = async (server: RuntimeApiServer) => {
    await pollUntil(
      () => api(server, '/pool'),
      (answer) => answer.json?.pools?.[0]?.warm === 1,
      { what: 'a warm sandbox' },
    );
    const [warm] = await new DockerRuntimeBackend({ namespace }).warmSandboxes.listWarm();
    return {
      url: warm?.url ?? '',
      runtimeId: warm?.labels[RUNTIME_LABELS.runtimeId] ?? '',
      nonce: warm?.labels[RUNTIME_LABELS.keyNonce] ?? '',
    };
  };
  /** The published agent-server URL of an inspected container. */
  const urlOf = (info: Awaited<ReturnType<typeof containerOf>>) =>
    `http://127.0.0.1:${info?.NetworkSettings.Ports['8000/tcp']?.[0]?.HostPort}`;

  afterEach(async () => {
    await servers.closeAll();
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
    await context.cleanup();
  });

  afterAll(async () => {
    await context.cleanup();
  });

  it('a restarted server finishes a claim whose server died between the rename and the init', async () => {
    // The first server reaches the engine through a proxy that holds back rename answers: its
    // claim renames the warm container in the engine, then never hears of it.
    const proxy = await EngineProxy.start();
    proxies.push(proxy);
    const first = await servers.serve({
      backend: new DockerRuntimeBackend({
        namespace,
        dockerOptions: { host: '127.0.0.1', port: proxy.port, protocol: 'http' },
      }),
      warmPool: [{ image, count: 1 }],
    });
    const { runtimeId, nonce } = await oneWarm(first);
    proxy.holdRenames();
    const sessionId = `interrupted-${randomUUID()}`;
    const answer = api(first, '/start', pooledBody(sessionId)).catch((error: Error) => error);
    await proxy.untilHeld(1);
    await pollUntil(
      () => containerOf(runtimeId),
      (info) => info?.Name.endsWith(`.${sessionId}`) === true,
      { what: 'the claim to rename the warm container' },
    );
    // The first server loses the engine and is gone: no init ever reaches the sandbox.
    await proxy.close();
    await answer;
    await first.close();

    const claimed = await containerOf(runtimeId);
    expect(claimed?.State.Running).toBe(true);
    const url = urlOf(claimed);
    const key = deriveClaimedKey(SECRET, sessionId, runtimeId, nonce);
    expect(await initState(url)).toBe('dormant');
    expect(await keyedStatus(url, key)).toBe(401);

    // A new server on the same engine: fetching the session hands out a key that works.
    const second = await servers.serve();
    const got = await api(second, `/sessions/${sessionId}`);
    expect(got.status, got.text).toBe(200);
    expect(got.json).toMatchObject({
      runtime_id: runtimeId,
      session_api_key: key,
      pod_status: 'ready',
    });
    expect(await initState(url)).toBe('ready');
    const ran = await runOnAgentServer(got.json.url, key, 'echo recovered');
    expect([ran.status, ran.json?.stdout?.trim()]).toEqual([200, 'recovered']);
    expect(await keyedStatus(url, deriveSandboxKey(SECRET, runtimeId, nonce))).toBe(401);
    // A retried start answers the same session, with the same key.
    const again = await api(second, '/start', pooledBody(sessionId));
    expect([again.status, again.json?.runtime_id, again.json?.session_api_key]).toEqual([
      200,
      runtimeId,
      key,
    ]);
  });

  it('keeps a claim whose init another server finished first with the same key', async () => {
    const server = await servers.serve({ warmPool: [{ image, count: 1 }] });
    const warm = await oneWarm(server);
    const { runtimeId, nonce } = warm;
    const sessionId = `raced-${randomUUID()}`;
    const key = deriveClaimedKey(SECRET, sessionId, runtimeId, nonce);
    // As a restarted server finishing an interrupted claim of this session would.
    const raced = await call(warm.url, '/api/init', {
      headers: { 'x-init-api-key': deriveSandboxKey(SECRET, runtimeId, nonce) },
      body: { session_api_keys: [key] },
    });
    expect([raced.status, raced.json?.state]).toEqual([200, 'ready']);

    // The claim's own init is refused (400), yet the sandbox takes the session's key: it stays.
    const started = await api(server, '/start', pooledBody(sessionId));
    expect(started.status, started.text).toBe(201);
    expect(started.json).toMatchObject({
      runtime_id: runtimeId,
      session_api_key: key,
      pod_status: 'ready',
    });
    expect(await keyedStatus(started.json.url, key)).toBe(200);
  });

  it('reaps such a session once idle when nobody fetches it (its clock needs no key)', async () => {
    // What a crashed claim leaves, made with the backend's own warm pool calls.
    const backend = new DockerRuntimeBackend({ namespace });
    const { spec } = warmSandboxSpec({
      entry: { image, count: 1, workingDir: '/workspace' },
      namespace,
      sessionKeySecret: SECRET,
      resources: {},
    });
    const warm = await backend.warmSandboxes.startWarm(spec);
    await pollUntil(
      () => initState(warm.url ?? '').catch(() => undefined),
      (state) => state === 'dormant',
      { what: 'the warm sandbox to be dormant' },
    );
    const sessionId = `orphan-${randomUUID()}`;
    await backend.warmSandboxes.claimWarm(spec.runtimeId, sessionId);

    const server = await servers.serve({ idleTimeoutSeconds: 1 });
    await pollUntil(
      () =>
        call(warm.url ?? '', '/server_info', {
          headers: {
            'x-session-api-key': deriveSandboxKey(
              SECRET,
              spec.runtimeId,
              spec.labels[RUNTIME_LABELS.keyNonce] ?? '',
            ),
          },
        }),
      (info) => info.json?.idle_time >= 2,
      { what: 'the dormant sandbox to idle past the timeout' },
    );
    const report = await server.reapSessions();
    expect(report.failures).toEqual([]);
    expect(report.reaped).toEqual([
      expect.objectContaining({ sessionId, action: 'stop', reason: 'idle' }),
    ]);
    expect(await containerOf(spec.runtimeId)).toBeUndefined();
  });
});
