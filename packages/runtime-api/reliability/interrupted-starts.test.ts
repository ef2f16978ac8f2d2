import { randomUUID } from 'node:crypto';
import { AGENT_SERVER_LISTENING_EVENT } from '@agent-workspace/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RUNTIME_LABELS } from '../src/backend/session-labels.js';
import { fetchServerClock } from '../src/server/probe-agent-server.js';
import { deriveClaimedKey, deriveSessionKey } from '../src/server/session-key.js';
import { EngineProxy } from '../src/server/test-support/engine-proxy.js';
import { call } from '../src/server/test-support/runtime-api-call.js';
import { startWithDyingSandbox } from '../src/server/test-support/start-with-dying-sandbox.js';
import { keyedStatus, pollUntil } from '../src/test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../src/test-support/remote-api-test-context.js';
import { RuntimeApiProcess } from './support/runtime-api-process.js';

const context = remoteApiTestContext();
const GRACE_SECONDS = 3;
const PASS_DONE = '"msg":"reaping pass done"';

context.describe('runtime-api: starts cut short by a dying sandbox or a killed server', () => {
  const { docker, image, namespace } = context;
  const processes: RuntimeApiProcess[] = [];
  let proxy: EngineProxy;

  const serve = async (options: Partial<Parameters<typeof RuntimeApiProcess.start>[0]> = {}) => {
    const server = await RuntimeApiProcess.start({ image, namespace, ...options });
    processes.push(server);
    return server;
  };
  const start = (server: RuntimeApiProcess, sessionId: string) =>
    call(server.url, '/start', { apiKey: server.apiKey, body: { image, session_id: sessionId } });
  const containersOf = (sessionId: string) =>
    docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.sessionId}=${sessionId}`] },
    });
  const expectNoSecretLogged = (server: RuntimeApiProcess) => {
    expect(server.output).not.toContain(server.apiKey);
    expect(server.output).not.toContain(server.secret);
  };

  beforeAll(async () => {
    proxy = await EngineProxy.start();
  });

  afterAll(async () => {
    for (const server of processes) await server.stop();
    await proxy?.close();
    await context.cleanup();
  });

  it('answers 502 with the logs for a sandbox that died as it started, and leaves nothing', async () => {
    const server = await serve({ env: { DOCKER_HOST: proxy.dockerHost } });
    const sessionId = `dies-${randomUUID()}`;
    const failed = await startWithDyingSandbox({
      docker,
      proxy,
      sessionId,
      start: () => start(server, sessionId),
    });
    expect(failed.status).toBe(502);
    expect(failed.json.detail).toMatch(/stopped as it started: exited with code 137/);
    expect(failed.json.detail).toContain(AGENT_SERVER_LISTENING_EVENT);
    expect(await containersOf(sessionId)).toEqual([]);
    expect(
      (await call(server.url, `/sessions/${sessionId}`, { apiKey: server.apiKey })).status,
    ).toBe(404);
    expect(server.exit).toBeUndefined();
    expectNoSecretLogged(server);
    await server.stop();
  });

  it('after a kill -9 mid-start, the restarted server removes the session nobody heard of once the grace passed, and keeps the one a client fetched', async () => {
    const first = await serve({ env: { DOCKER_HOST: proxy.dockerHost } });
    proxy.holdStarts();
    const lost = `lost-${randomUUID()}`;
    const fetched = `fetched-${randomUUID()}`;
    const answers = [lost, fetched].map((sessionId) =>
      start(first, sessionId).catch((error: Error) => error),
    );
    await proxy.untilHeld(2);
    // Both starts ran in the engine; the server has not heard back from either.
    for (const sessionId of [lost, fetched]) {
      await pollUntil(
        () => containersOf(sessionId),
        ([container]) => container?.State === 'running',
        { what: `${sessionId}'s sandbox to run` },
      );
    }
    expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    for (const answer of await Promise.all(answers)) expect(answer).toBeInstanceOf(Error);
    proxy.release();

    const second = await serve({
      keys: { apiKey: first.apiKey, secret: first.secret },
      flags: [
        '--unacknowledged-start-grace-seconds',
        String(GRACE_SECONDS),
        '--idle-check-interval-seconds',
        '0.5',
      ],
    });
    // A client that lost its answer asks for its session again.
    await pollUntil(
      () => call(second.url, `/sessions/${fetched}`, { apiKey: second.apiKey }),
      (answer) => answer.json?.pod_status === 'ready',
      { what: `session ${fetched} to be ready` },
    );
    await pollUntil(
      () => containersOf(lost),
      (containers) => containers.length === 0,
      { what: `the unacknowledged session ${lost} to be removed`, timeoutMs: 60_000 },
    );
    // The line is logged once the stop returns, which may be a moment after the container went.
    await pollUntil(
      () => Promise.resolve(second.output),
      (output) => output.includes(`reaped session ${lost}: no client fetched or used it`),
      { what: `the reaping of ${lost} to be logged` },
    );

    // The fetched one was judged too, in a pass that began once its agent-server had been up
    // for the grace: it is still there.
    const [container] = await containersOf(fetched);
    const info = await docker.getContainer(container!.Id).inspect();
    const key = deriveSessionKey(
      second.secret,
      fetched,
      info.Config.Labels[RUNTIME_LABELS.keyNonce] ?? '',
    );
    const url = `http://127.0.0.1:${info.NetworkSettings.Ports['8000/tcp']?.[0]?.HostPort}`;
    await pollUntil(
      () => fetchServerClock(url, key, { timeoutMs: 5000 }),
      (clock) => clock.uptimeSeconds >= GRACE_SECONDS,
      { what: `${fetched}'s agent-server to be up for the grace` },
    );
    const passes = () => second.output.split(PASS_DONE).length - 1;
    const before = passes();
    await pollUntil(
      async () => passes(),
      (count) => count >= before + 2,
      {
        what: 'two more reaping passes',
      },
    );
    expect(await containersOf(fetched)).toHaveLength(1);
    const kept = await call(second.url, `/sessions/${fetched}`, { apiKey: second.apiKey });
    expect([kept.status, kept.json.pod_status]).toEqual([200, 'ready']);
    expect(second.exit).toBeUndefined();
    expectNoSecretLogged(second);
  });

  it('after a kill -9 between a warm claim and its init, the restarted server finishes the claim when the session is fetched', async () => {
    const first = await serve({
      env: { DOCKER_HOST: proxy.dockerHost },
      flags: ['--warm-pool', `${image}=1`],
    });
    await pollUntil(
      () => call(first.url, '/pool', { apiKey: first.apiKey }),
      (answer) => answer.json?.pools?.[0]?.warm === 1,
      { what: 'a warm sandbox' },
    );
    const filters = {
      label: [`${RUNTIME_LABELS.namespace}=${namespace}`, `${RUNTIME_LABELS.pooled}=true`],
    };
    const [warm] = await docker.listContainers({ all: true, filters });
    const runtimeId = warm?.Labels[RUNTIME_LABELS.runtimeId] ?? '';
    const nonce = warm?.Labels[RUNTIME_LABELS.keyNonce] ?? '';
    // The claim's rename runs in the engine; the server never hears of it, and is killed.
    proxy.holdRenames();
    const sessionId = `claimed-${randomUUID()}`;
    const body = { image, session_id: sessionId, working_dir: '/workspace', environment: {} };
    const answer = call(first.url, '/start', { apiKey: first.apiKey, body }).catch(
      (error: Error) => error,
    );
    await proxy.untilHeld(1);
    const renamed = await pollUntil(
      () => docker.getContainer(warm?.Id ?? '').inspect(),
      (info) => info.Name.endsWith(`.${sessionId}`),
      { what: 'the claim to rename the warm container' },
    );
    expect(await first.kill()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await answer).toBeInstanceOf(Error);
    proxy.release();
    const url = `http://127.0.0.1:${renamed.NetworkSettings.Ports['8000/tcp']?.[0]?.HostPort}`;
    const key = deriveClaimedKey(first.secret, sessionId, runtimeId, nonce);
    expect((await call(url, '/api/init')).json?.state).toBe('dormant');
    expect(await keyedStatus(url, key)).toBe(401);

    const second = await serve({ keys: { apiKey: first.apiKey, secret: first.secret } });
    const got = await call(second.url, `/sessions/${sessionId}`, { apiKey: second.apiKey });
    expect([got.status, got.json?.runtime_id, got.json?.session_api_key]).toEqual([
      200,
      runtimeId,
      key,
    ]);
    expect(await keyedStatus(url, key)).toBe(200);
    expect(second.output).toContain('initialized a claimed sandbox left dormant');
    expect(second.output).not.toContain(key);
    expect(second.exit).toBeUndefined();
    expectNoSecretLogged(second);
  });
});
