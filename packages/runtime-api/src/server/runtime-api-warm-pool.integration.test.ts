import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { keyedStatus, pollUntil, waitUntilHealthy } from '../test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import type { RuntimeApiServer } from './create-runtime-api-server.js';
import { deriveSandboxKey } from './session-key.js';
import { dockerRuntimeApiServers } from './test-support/docker-runtime-api-servers.js';
import { call, pooledStartBody, runOnAgentServer } from './test-support/runtime-api-call.js';
import { warmSandboxSpec } from './warm-sandbox-spec.js';

const context = remoteApiTestContext();
const { docker, image, namespace } = context;
const KEY = `runtime-api-key-${randomUUID()}`;
const SECRET = `session-secret-${randomUUID()}`;
const MISSING_IMAGE = `agent-workspace/agent-server:missing-${randomUUID().slice(0, 8)}`;

const pooledBody = (sessionId: string) => pooledStartBody(image, sessionId);

interface Started {
  runtime_id: string;
  url: string;
  session_api_key: string;
  pod_status: string;
}

context.describe('Runtime API server warm pool on a real engine', () => {
  const servers = dockerRuntimeApiServers({
    apiKey: KEY,
    sessionKeySecret: SECRET,
    image,
    namespace,
    defaults: {
      warmPool: [{ image, count: 2 }],
      // A loaded machine can take over the default second to answer one probe.
      readinessTimeoutMs: 5_000,
    },
  });
  const serve = servers.serve;
  const api = (server: RuntimeApiServer, path: string, body?: unknown) =>
    call(server.url, path, { apiKey: KEY, body });
  const start = async (server: RuntimeApiServer, body: object): Promise<Started> => {
    const answer = await api(server, '/start', body);
    expect(answer.status, answer.text).toBe(201);
    return answer.json as Started;
  };
  /** Runtime ids of the namespace's unclaimed warm containers, as the engine has them. */
  const warmIds = async (): Promise<string[]> => {
    const filters = { label: [`${RUNTIME_LABELS.namespace}=${namespace}`] };
    const containers = await docker.listContainers({ all: true, filters });
    return containers
      .filter(({ Names }) => Names.some((name) => name.startsWith('/agent-workspace-warm-')))
      .map(({ Labels }) => Labels[RUNTIME_LABELS.runtimeId] ?? '')
      .sort();
  };
  /** Waits until `GET /pool` reports `warm` ready sandboxes of the image, and answers it. */
  const untilWarm = (server: RuntimeApiServer, warm: number) =>
    pollUntil(
      () => api(server, '/pool'),
      (answer) => answer.json?.pools?.[0]?.warm === warm && answer.json.pools[0].starting === 0,
      { what: `${warm} warm sandboxes` },
    );
  /** The init key a warm container started with, derived as the pool derives it. */
  const initKeyOf = (labels: Record<string, string>) =>
    deriveSandboxKey(
      SECRET,
      labels[RUNTIME_LABELS.runtimeId] ?? '',
      labels[RUNTIME_LABELS.keyNonce] ?? '',
    );
  const initState = async (url: string) => (await call(url, '/api/init')).json?.state;
  const containerOf = async (runtimeId: string) => {
    const filters = { label: [`${RUNTIME_LABELS.runtimeId}=${runtimeId}`] };
    return docker.listContainers({ all: true, filters });
  };

  afterEach(async () => {
    await servers.closeAll();
    await context.cleanup();
  });

  afterAll(async () => {
    await context.cleanup();
  });

  it('serves a matching /start from a warm sandbox, then replaces it in the pool', async () => {
    const server = await serve();
    await untilWarm(server, 2);
    const before = await warmIds();
    expect(before).toHaveLength(2);

    const sessionId = `pooled-${randomUUID()}`;
    const session = await start(server, pooledBody(sessionId));
    expect(before).toContain(session.runtime_id);
    expect(session.pod_status).toBe('ready');
    expect(await keyedStatus(session.url, session.session_api_key)).toBe(200);
    const [claimed] = await containerOf(session.runtime_id);
    expect(claimed?.Names).toEqual([expect.stringMatching(new RegExp(`\\.${sessionId}$`))]);

    const refilled = await untilWarm(server, 2);
    expect(refilled.json.pools[0]).toMatchObject({
      image,
      target: 2,
      claimed_total: 1,
      failures: 0,
      last_failure: null,
    });
    const after = await warmIds();
    expect(after).toHaveLength(2);
    expect(after).not.toContain(session.runtime_id);

    // A claimed sandbox is that session, with the same key, and its idle clock was reset.
    const got = await api(server, `/sessions/${sessionId}`);
    expect(got.json).toMatchObject({
      runtime_id: session.runtime_id,
      session_api_key: session.session_api_key,
      pod_status: 'ready',
    });
    // A retried start answers the same session.
    const again = await api(server, '/start', pooledBody(sessionId));
    expect(again.status).toBe(200);
    expect(again.json.runtime_id).toBe(session.runtime_id);
  });

  it('never lets two sessions share a sandbox, its files or its key', async () => {
    const server = await serve();
    await untilWarm(server, 2);
    const first = await start(server, pooledBody(`first-${randomUUID()}`));
    const second = await start(server, pooledBody(`second-${randomUUID()}`));
    expect(first.runtime_id).not.toBe(second.runtime_id);
    expect(first.url).not.toBe(second.url);

    const wrote = await runOnAgentServer(first.url, first.session_api_key, 'echo mine > note.txt');
    expect(wrote.json.exit_code).toBe(0);
    const seen = await runOnAgentServer(second.url, second.session_api_key, 'test -e note.txt');
    expect(seen.json.exit_code).toBe(1);
    expect(await keyedStatus(second.url, first.session_api_key)).toBe(401);
    expect(await keyedStatus(first.url, second.session_api_key)).toBe(401);
  });

  it('starts warm sandboxes dormant and hands the claiming session a key only init gave them', async () => {
    const server = await serve();
    await untilWarm(server, 2);
    const warm = await new DockerRuntimeBackend({ namespace }).warmSandboxes.listWarm();
    for (const sandbox of warm) expect(await initState(sandbox.url ?? '')).toBe('dormant');

    const session = await start(server, pooledBody(`init-${randomUUID()}`));
    const claimed = warm.find(
      (sandbox) => sandbox.labels[RUNTIME_LABELS.runtimeId] === session.runtime_id,
    );
    const initKey = initKeyOf(claimed?.labels ?? {});
    expect(session.session_api_key).not.toBe(initKey);
    expect(await initState(session.url)).toBe('ready');
    expect(await keyedStatus(session.url, session.session_api_key)).toBe(200);
    // The start-up key stopped working at init, and a second init is refused.
    expect(await keyedStatus(session.url, initKey)).toBe(401);
    const again = await call(session.url, '/api/init', {
      headers: { 'x-init-api-key': initKey },
      body: { session_api_keys: ['another-key-of-someone'] },
    });
    expect(again.status).toBe(400);

    // Neither key is in what the engine shows of the container.
    const [container] = await containerOf(session.runtime_id);
    const inspected = JSON.stringify(await docker.getContainer(container?.Id ?? '').inspect());
    expect(inspected).not.toContain(initKey);
    expect(inspected).not.toContain(session.session_api_key);
    expect(inspected).toContain('OH_DEFERRED_INIT=true');
  });

  it('starts cold when a claimed warm sandbox refuses init, removing it', async () => {
    const server = await serve({ warmPool: [{ image, count: 1 }] });
    await untilWarm(server, 1);
    const [sandbox] = await new DockerRuntimeBackend({ namespace }).warmSandboxes.listWarm();
    const url = sandbox?.url ?? '';
    // Initialized behind the pool's back: the claim's init is then refused (400).
    const stolen = await call(url, '/api/init', {
      headers: { 'x-init-api-key': initKeyOf(sandbox?.labels ?? {}) },
      body: { session_api_keys: [`thief-${randomUUID()}`] },
    });
    expect([stolen.status, stolen.json?.state]).toEqual([200, 'ready']);

    const sessionId = `refused-${randomUUID()}`;
    const session = await start(server, pooledBody(sessionId));
    const warmId = sandbox?.labels[RUNTIME_LABELS.runtimeId] ?? '';
    expect(session.runtime_id).not.toBe(warmId);
    expect(await containerOf(warmId)).toEqual([]);
    await pollUntil(
      () => api(server, `/sessions/${sessionId}`),
      (answer) => answer.json?.pod_status === 'ready',
      { what: 'the cold session to be ready' },
    );
    expect(await keyedStatus(session.url, session.session_api_key)).toBe(200);
    expect(await initState(session.url)).not.toBe('dormant');
  });

  it('starts a request with another environment cold, leaving the pool as it was', async () => {
    const server = await serve();
    await untilWarm(server, 2);
    const before = await warmIds();
    const sessionId = `cold-${randomUUID()}`;
    const session = await start(server, {
      ...pooledBody(sessionId),
      environment: { POOL_TEST: 'cold' },
    });
    expect(before).not.toContain(session.runtime_id);
    expect(await warmIds()).toEqual(before);
    expect((await api(server, '/pool')).json.pools[0].claimed_total).toBe(0);
    await pollUntil(
      () => api(server, `/sessions/${sessionId}`),
      (answer) => answer.json?.pod_status === 'ready',
      { what: 'the cold session to be ready' },
    );
    const ran = await runOnAgentServer(session.url, session.session_api_key, 'echo $POOL_TEST');
    expect(ran.json.stdout.trim()).toBe('cold');
  });

  it('removes a claimed sandbox on /stop, and neither counts nor lists warm sandboxes as sessions', async () => {
    const server = await serve({ maxSessions: 1 });
    await untilWarm(server, 2);
    expect((await api(server, '/sessions')).json.sessions).toEqual([]);
    // Two warm containers, yet the first session fits under maxSessions 1.
    const session = await start(server, pooledBody(`limited-${randomUUID()}`));
    const listed = (await api(server, '/sessions')).json.sessions;
    expect(listed.map((entry: Started) => entry.runtime_id)).toEqual([session.runtime_id]);
    const refused = await api(server, '/start', pooledBody(`over-${randomUUID()}`));
    expect(refused.status).toBe(429);

    // A claimed sandbox pauses and resumes like any session.
    const paused = await api(server, '/pause', { runtime_id: session.runtime_id });
    expect([paused.status, paused.json.status]).toEqual([200, 'paused']);
    const resumed = await api(server, '/resume', { runtime_id: session.runtime_id });
    expect([resumed.status, resumed.json.status]).toEqual([200, 'running']);
    expect(await keyedStatus(session.url, session.session_api_key)).toBe(200);

    const stopped = await api(server, '/stop', { runtime_id: session.runtime_id });
    expect(stopped.status).toBe(200);
    expect(await containerOf(session.runtime_id)).toEqual([]);
    expect(await warmIds()).not.toContain(session.runtime_id);
  });

  it('never reaps warm sandboxes, and a claimed one idles from its claim, not its start', async () => {
    // The timer never fires during the test: passes run on demand.
    const server = await serve({ idleTimeoutSeconds: 1, idleCheckIntervalSeconds: 3600 });
    await untilWarm(server, 2);
    const warm = await new DockerRuntimeBackend({ namespace }).warmSandboxes.listWarm();
    await Promise.all(
      warm.map(({ url, labels }) => {
        const key = initKeyOf(labels);
        return pollUntil(
          () => call(url ?? '', '/server_info', { headers: { 'x-session-api-key': key } }),
          (answer) => answer.json?.idle_time >= 2,
          { what: 'warm sandboxes idle past the timeout' },
        );
      }),
    );
    const none = await server.reapSessions();
    expect([none.checked, none.reaped]).toEqual([0, []]);

    const session = await start(server, pooledBody(`fresh-${randomUUID()}`));
    const report = await server.reapSessions();
    expect(report.checked).toBe(1);
    expect(report.failures).toEqual([]);
    expect(report.reaped).toEqual([]);
    expect(await containerOf(session.runtime_id)).toHaveLength(1);
  });

  it('leaves no warm container on shutdown, and keeps claimed sessions', async () => {
    const server = await serve();
    await untilWarm(server, 2);
    const session = await start(server, pooledBody(`kept-${randomUUID()}`));
    await server.close();
    expect(await warmIds()).toEqual([]);
    expect(await containerOf(session.runtime_id)).toHaveLength(1);
    expect((await call(session.url, '/health')).status).toBe(200);
  });

  it('a restarted server adopts fitting warm sandboxes, removes the rest, and keeps claimed ones as sessions', async () => {
    const first = await serve({ warmPool: [{ image, count: 1 }] });
    await untilWarm(first, 1);
    const sessionId = `claimed-${randomUUID()}`;
    const session = await start(first, pooledBody(sessionId));
    await first.close();

    // What a crashed server leaves: one sandbox of the pool's settings, one of other settings.
    const backend = new DockerRuntimeBackend({ namespace });
    const leftover = (workingDir: string) =>
      backend.warmSandboxes.startWarm(
        warmSandboxSpec({
          entry: { image, count: 1, workingDir },
          namespace,
          sessionKeySecret: SECRET,
          resources: {},
        }).spec,
      );
    const fitting = await leftover('/workspace');
    const stray = await leftover('/tmp');
    const fittingId = fitting.labels[RUNTIME_LABELS.runtimeId];

    const second = await serve({ warmPool: [{ image, count: 1 }] });
    await untilWarm(second, 1);
    await pollUntil(warmIds, (ids) => ids.length === 1, { what: 'the stray to be removed' });
    expect(await warmIds()).toEqual([fittingId]);
    expect(await containerOf(stray.labels[RUNTIME_LABELS.runtimeId] ?? '')).toEqual([]);

    // The claimed session is a session, not warm; the adopted sandbox serves the next start.
    const got = await api(second, `/sessions/${sessionId}`);
    expect(got.json).toMatchObject({
      runtime_id: session.runtime_id,
      session_api_key: session.session_api_key,
    });
    const next = await start(second, pooledBody(`adopted-${randomUUID()}`));
    expect(next.runtime_id).toBe(fittingId);
    expect(await keyedStatus(next.url, next.session_api_key)).toBe(200);
  });

  it('never adopts a warm sandbox whose agent-server is not dormant', async () => {
    // Fitting settings, but started without deferred init: its health check fails.
    const { spec } = warmSandboxSpec({
      entry: { image, count: 1, workingDir: '/workspace' },
      namespace,
      sessionKeySecret: SECRET,
      resources: {},
    });
    const { OH_DEFERRED_INIT: _, ...environment } = spec.environment;
    const eager = await new DockerRuntimeBackend({ namespace }).warmSandboxes.startWarm({
      ...spec,
      environment,
    });
    await waitUntilHealthy(eager.url ?? '');
    expect((await call(eager.url ?? '', '/api/init')).status).toBe(401);

    const server = await serve({ warmPool: [{ image, count: 1 }] });
    await untilWarm(server, 1);
    await pollUntil(warmIds, (ids) => !ids.includes(spec.runtimeId), { what: 'its removal' });
    expect(await containerOf(spec.runtimeId)).toEqual([]);
    const session = await start(server, pooledBody(`dormant-${randomUUID()}`));
    expect(session.runtime_id).not.toBe(spec.runtimeId);
    expect(await keyedStatus(session.url, session.session_api_key)).toBe(200);
  });

  it('backs off and reports failed refills without failing the server', async () => {
    const server = await serve({
      images: [image, MISSING_IMAGE],
      warmPool: [{ image: MISSING_IMAGE, count: 1 }],
    });
    const failing = await pollUntil(
      () => api(server, '/pool'),
      (answer) => answer.json?.pools?.[0]?.failures >= 2,
      { what: 'two failed refills' },
    );
    expect(failing.json.pools[0]).toMatchObject({ image: MISSING_IMAGE, warm: 0 });
    expect(failing.json.pools[0].last_failure).toContain(MISSING_IMAGE);
    expect((await call(server.url, '/health')).status).toBe(200);
    // A start of that image is cold, and fails as a cold start does.
    const refused = await api(server, '/start', { ...pooledBody('x'), image: MISSING_IMAGE });
    expect(refused.status).toBeGreaterThanOrEqual(400);
  });
});
