import { randomUUID } from 'node:crypto';
import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { afterEach, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { keyedStatus, pollUntil } from '../test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { runtimeApiServerFixture } from '../test-support/runtime-api-server-fixture.js';
import { SESSION_LIMIT_RETRY_AFTER_SECONDS } from './start-session.js';
import { type Answer, call, issueLocs } from './test-support/runtime-api-call.js';

const context = remoteApiTestContext();
const MAX_SESSIONS = 3;
const MEMORY_BYTES = 256 * 1024 * 1024;
/** Allowed, but not on the engine: starts with it never get that far. */
const OTHER_IMAGE = 'agent-workspace/not-pulled:never';

context.describe('Runtime API routes (Docker backend, real agent-server image)', () => {
  const runtimeApi = runtimeApiServerFixture(context, {
    backend: new DockerRuntimeBackend({ namespace: context.namespace }),
    images: [context.image, OTHER_IMAGE],
    maxSessions: MAX_SESSIONS,
    resources: { memoryBytes: MEMORY_BYTES, cpus: 0.5, pidsLimit: 256 },
  });
  const { apiKey, api, ready } = runtimeApi;
  const start = (sessionId: string, extra: Record<string, unknown> = {}) =>
    api('/start', { body: { image: context.image, session_id: sessionId, ...extra } });

  // A test that failed half-way must not leave sessions that count against the next one's limit.
  afterEach(async () => {
    const { json } = await api('/sessions');
    for (const { runtime_id } of json.sessions as { runtime_id: string }[]) {
      await api('/stop', { body: { runtime_id } });
    }
  });

  it('serves /health without a key and the OpenAPI document with one', async () => {
    const health = await call(runtimeApi.server.url, '/health');
    expect([health.status, health.json]).toEqual([200, { status: 'ok' }]);
    expect((await call(runtimeApi.server.url, '/openapi.json')).status).toBe(401);
    const openapi = await api('/openapi.json');
    expect(openapi.status).toBe(200);
    expect(Object.keys(openapi.json.paths).sort()).toEqual([
      '/health',
      '/pause',
      '/pool',
      '/resume',
      '/sessions',
      '/sessions/{session_id}',
      '/snapshots',
      '/snapshots/{snapshot_id}',
      '/start',
      '/stop',
    ]);
    // Without warmPool, the pool route reports none.
    expect((await api('/pool')).json).toEqual({ pools: [] });
    expect(openapi.json.paths['/sessions/{session_id}'].get.parameters[0]).toMatchObject({
      in: 'path',
      name: 'session_id',
    });
    expect(Object.keys(openapi.json.components.schemas)).toEqual(
      expect.arrayContaining([
        'StartRuntimeRequest',
        'RuntimeSession',
        'ErrorEnvelope',
        'WarmPoolStats',
      ]),
    );
    expect(openapi.json.components.securitySchemes.runtimeApiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
    });
  });

  it('starts a session (201) whose key works on its agent-server, and answers a retry with it (200)', async () => {
    const sessionId = `routes-${randomUUID()}`;
    const started = await start(sessionId);
    expect(started.status).toBe(201);
    expect(started.json).toMatchObject({
      session_id: sessionId,
      status: 'running',
      image: context.image,
      resource_factor: 1,
    });
    expect(started.json.runtime_id).toMatch(/^[0-9a-f]{32}$/);
    expect(started.json.session_api_key).toMatch(/^[0-9a-f]{64}$/);
    expect(started.json.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const got = await ready(sessionId);
    expect(got.json).toMatchObject({
      runtime_id: started.json.runtime_id,
      session_api_key: started.json.session_api_key,
      url: started.json.url,
      status: 'running',
    });
    expect(await keyedStatus(started.json.url, started.json.session_api_key)).toBe(200);
    expect(await keyedStatus(started.json.url, 'not-the-key')).toBe(401);

    const retry = await start(sessionId);
    expect(retry.status).toBe(200);
    expect(retry.json).toMatchObject({
      runtime_id: started.json.runtime_id,
      session_api_key: started.json.session_api_key,
    });
    const conflict = await start(sessionId, { image: OTHER_IMAGE });
    expect(conflict.status).toBe(409);
    expect(conflict.json.detail).toContain(sessionId);

    const list = await api('/sessions');
    expect(list.status).toBe(200);
    const listed = list.json.sessions.find(
      (session: { session_id: string }) => session.session_id === sessionId,
    );
    expect(listed).toMatchObject({ runtime_id: started.json.runtime_id, pod_status: 'ready' });
    expect(listed).not.toHaveProperty('session_api_key');
    expect(list.text).not.toContain(started.json.session_api_key);
    await api('/stop', { body: { runtime_id: started.json.runtime_id } });
  });

  it('refuses every request without the right X-API-Key with 401 before looking at it', async () => {
    const sessionId = `auth-${randomUUID()}`;
    const started = await start(sessionId);
    expect(started.status).toBe(201);
    const sessionKey: string = started.json.session_api_key;
    const requests: [string, Parameters<typeof call>[2]][] = [
      ['/start', { body: { image: context.image, session_id: 'x' } }],
      ['/start', { body: '{"not json' }],
      [`/sessions/${sessionId}`, {}],
      ['/sessions', {}],
      ['/sessions/%00bad', {}],
      ['/pause', { body: { runtime_id: started.json.runtime_id } }],
      ['/resume', { body: { runtime_id: started.json.runtime_id } }],
      ['/stop', { body: { runtime_id: started.json.runtime_id } }],
      ['/openapi.json', {}],
      ['/no-such-route', {}],
    ];
    const credentials: Record<string, string>[] = [
      {},
      { 'x-api-key': `${apiKey}x` },
      { 'x-api-key': apiKey.slice(0, -1) },
      { 'x-api-key': '' },
      // The key of the other hop: a session key is no Runtime API key (OpenHands defect §8 #16).
      { 'x-api-key': sessionKey },
      { [SESSION_API_KEY_HEADER]: sessionKey },
      { [SESSION_API_KEY_HEADER]: apiKey },
      { authorization: `Bearer ${apiKey}` },
    ];
    for (const [path, options] of requests) {
      for (const headers of credentials) {
        const answer = await call(runtimeApi.server.url, path, {
          ...options,
          apiKey: undefined,
          headers,
        });
        expect([path, headers, answer.status, answer.json]).toEqual([
          path,
          headers,
          401,
          { detail: 'Unauthorized' },
        ]);
        expect(answer.text).not.toContain(apiKey);
      }
    }
    // Nothing was done: the session still runs.
    expect((await api(`/sessions/${sessionId}`)).json.status).toBe('running');
    await api('/stop', { body: { runtime_id: started.json.runtime_id } });
  });

  it('answers 404 for unknown sessions and runtimes, and stop idempotently', async () => {
    const unknown = await api('/sessions/no-such-session');
    expect([unknown.status, unknown.json]).toEqual([
      404,
      { detail: 'session no-such-session not found' },
    ]);
    const runtimeId = '0'.repeat(32);
    for (const route of ['/pause', '/resume']) {
      const answer = await api(route, { body: { runtime_id: runtimeId } });
      expect([route, answer.status, answer.json]).toEqual([
        route,
        404,
        { detail: `runtime ${runtimeId} not found` },
      ]);
    }
    const stopUnknown = await api('/stop', { body: { runtime_id: runtimeId } });
    expect([stopUnknown.status, stopUnknown.json]).toEqual([
      200,
      { runtime_id: runtimeId, status: 'stopped' },
    ]);

    const sessionId = `stop-${randomUUID()}`;
    const started = await start(sessionId);
    const body = { runtime_id: started.json.runtime_id };
    for (let round = 0; round < 2; round++) {
      const stopped = await api('/stop', { body });
      expect([stopped.status, stopped.json]).toEqual([200, { ...body, status: 'stopped' }]);
    }
    expect((await api(`/sessions/${sessionId}`)).status).toBe(404);
    const left = await context.docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.runtimeId}=${body.runtime_id}`] },
    });
    expect(left).toEqual([]);
  });

  it('pauses and resumes a session, which answers again on the same key', async () => {
    const sessionId = `pause-${randomUUID()}`;
    const started = await start(sessionId);
    expect(started.status, started.text).toBe(201);
    await ready(sessionId);
    const body = { runtime_id: started.json.runtime_id };
    for (let round = 0; round < 2; round++) {
      const paused = await api('/pause', { body });
      expect(paused.status, paused.text).toBe(200);
      expect(paused.json).toMatchObject({ ...body, status: 'paused', pod_status: 'pending' });
      expect(paused.json.session_api_key).toBe(started.json.session_api_key);
    }
    expect((await api(`/sessions/${sessionId}`)).json.status).toBe('paused');
    const resumed = await api('/resume', { body });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.json).toMatchObject({ ...body, status: 'running' });
    const again = await ready(sessionId);
    expect(await keyedStatus(again.json.url, started.json.session_api_key)).toBe(200);
    await api('/stop', { body });
  });

  it('applies the base limits times resource_factor to the sandbox', async () => {
    // NODE_ENV is no reserved name (Node ignores it).
    const started = await start(`limits-${randomUUID()}`, {
      resource_factor: 2,
      environment: { NODE_ENV: 'production' },
    });
    expect(started.status).toBe(201);
    expect(started.json.resource_factor).toBe(2);
    const [container] = await context.docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.runtimeId}=${started.json.runtime_id}`] },
    });
    const info = await context.docker.getContainer(container!.Id).inspect();
    expect(info.HostConfig.Memory).toBe(2 * MEMORY_BYTES);
    expect(info.HostConfig.NanoCpus).toBe(1e9);
    expect(info.HostConfig.PidsLimit).toBe(512);
    // The sandbox holds the key's hash only.
    const environment = (info.Config.Env ?? []).join('\n');
    expect(environment).not.toContain(started.json.session_api_key);
    expect(environment).toMatch(/^SESSION_API_KEY_SHA256=[0-9a-f]{64}$/m);
    expect(environment).toMatch(/^NODE_ENV=production$/m);
    await api('/stop', { body: { runtime_id: started.json.runtime_id } });
  });

  it('refuses bad input with a 422 naming the field, starting nothing', async () => {
    const before = (await api('/sessions')).json.sessions.length;
    const cases: [unknown, unknown[]][] = [
      [{ image: context.image, session_id: 'ok', gpus: 1 }, ['body', 'gpus']],
      [{ image: context.image, session_id: '../etc' }, ['body', 'session_id']],
      [{ image: context.image, session_id: 'a'.repeat(129) }, ['body', 'session_id']],
      [{ image: context.image }, ['body', 'session_id']],
      [{ image: context.image, session_id: 'ok', resource_factor: 3 }, ['body', 'resource_factor']],
      [{ image: 'evil/image:latest', session_id: 'ok' }, ['body', 'image']],
      [
        { image: context.image, session_id: 'ok', environment: { SESSION_API_KEY: 'mine' } },
        ['body', 'environment', 'SESSION_API_KEY'],
      ],
      [
        { image: context.image, session_id: 'ok', environment: { OH_SESSION_API_KEYS_0: 'x' } },
        ['body', 'environment', 'OH_SESSION_API_KEYS_0'],
      ],
      [
        { image: context.image, session_id: 'ok', image_pull_policy: 'Always' },
        ['body', 'image_pull_policy'],
      ],
      [{ image: context.image, session_id: 'ok', run_as_user: -1 }, ['body', 'run_as_user']],
      [
        { image: context.image, session_id: 'ok', environment: { LD_PRELOAD: '/tmp/x.so' } },
        ['body', 'environment', 'LD_PRELOAD'],
      ],
      [
        { image: context.image, session_id: 'ok', environment: { node_options: '--inspect' } },
        ['body', 'environment', 'node_options'],
      ],
      [
        { image: context.image, session_id: 'ok', environment: { BASH_ENV: '/workspace/rc' } },
        ['body', 'environment', 'BASH_ENV'],
      ],
      [
        { image: context.image, session_id: 'ok', working_dir: 'workspace' },
        ['body', 'working_dir'],
      ],
      [
        { image: context.image, session_id: 'ok', working_dir: '/a\u0000b' },
        ['body', 'working_dir'],
      ],
    ];
    for (const [body, loc] of cases) {
      const answer = await api('/start', { body });
      expect([body, answer.status, issueLocs(answer)]).toEqual([body, 422, [loc]]);
    }
    const preload = await start('ok', { environment: { LD_PRELOAD: '/tmp/x.so' } });
    expect(preload.json.detail[0].msg).toMatch(/LD_PRELOAD is reserved: .*load code/);
    const relative = await start('ok', { working_dir: 'workspace' });
    expect(relative.json.detail[0].msg).toContain('must be an absolute path');
    const badPath = await api('/sessions/..%2Fetc');
    expect([badPath.status, issueLocs(badPath)]).toEqual([422, [['path', 'session_id']]]);
    const longPath = await api(`/sessions/${'a'.repeat(129)}`);
    expect([longPath.status, issueLocs(longPath)]).toEqual([422, [['path', 'session_id']]]);
    // Ids past the router's own parameter limit (100) but within the protocol's (128) work.
    expect((await api(`/sessions/${'a'.repeat(128)}`)).status).toBe(404);
    const badRuntime = await api('/stop', { body: { runtime_id: 'x', extra: true } });
    expect([badRuntime.status, issueLocs(badRuntime)]).toEqual([422, [['body', 'extra']]]);
    expect((await api('/sessions')).json.sessions.length).toBe(before);
  });

  it(`refuses a start past maxSessions (${MAX_SESSIONS}) with 429 and Retry-After`, async () => {
    const started: Answer[] = [];
    for (let index = 0; index < MAX_SESSIONS; index++) {
      started.push(await start(`limit-${index}-${randomUUID()}`));
    }
    expect(started.map((answer) => answer.status)).toEqual(Array(MAX_SESSIONS).fill(201));
    const refused = await start(`limit-over-${randomUUID()}`);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(SESSION_LIMIT_RETRY_AFTER_SECONDS));
    expect(refused.json.detail).toContain(`at most ${MAX_SESSIONS} sessions`);
    // A retry of an existing session is no new session.
    expect((await start(started[0]!.json.session_id)).status).toBe(200);
    await api('/stop', { body: { runtime_id: started[0]!.json.runtime_id } });
    const afterStop = await start(`limit-after-${randomUUID()}`);
    expect(afterStop.status).toBe(201);
    for (const answer of [...started.slice(1), afterStop]) {
      await api('/stop', { body: { runtime_id: answer.json.runtime_id } });
    }
  });

  it('reports a sandbox that exited as failed with its last log lines, and replaces it on /start', async () => {
    const sessionId = `exits-${randomUUID()}`;
    const started = await start(sessionId);
    expect(started.status, started.text).toBe(201);
    await ready(sessionId);
    const [container] = await context.docker.listContainers({
      filters: { label: [`${RUNTIME_LABELS.runtimeId}=${started.json.runtime_id}`] },
    });
    await context.docker.getContainer(container!.Id).kill({ signal: 'SIGKILL' });
    const failed = await pollUntil(
      () => api(`/sessions/${sessionId}`),
      (answer) => answer.json?.status === 'stopped',
      { what: 'the killed session to be stopped' },
    );
    expect(failed.json).toMatchObject({ pod_status: 'failed', url: '' });
    expect(failed.json.message).toMatch(/exited/);
    expect(failed.json.message).toContain('last log lines');
    const restarted = await start(sessionId);
    expect(restarted.status).toBe(201);
    expect(restarted.json.runtime_id).not.toBe(started.json.runtime_id);
    expect(restarted.json.session_api_key).not.toBe(started.json.session_api_key);
    await api('/stop', { body: { runtime_id: restarted.json.runtime_id } });
  });
});
