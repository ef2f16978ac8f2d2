import { randomUUID } from 'node:crypto';
import { AGENT_SERVER_LISTENING_EVENT } from '@agent-workspace/protocol';
import { afterAll, afterEach, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { pollUntil, waitUntilHealthy } from '../test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { isStartAcknowledged } from './acknowledge-session.js';
import type { RuntimeApiServer } from './create-runtime-api-server.js';
import { fetchServerClock } from './probe-agent-server.js';
import type { RuntimeApiServerOptions } from './runtime-api-server-options.js';
import { deriveSessionKey } from './session-key.js';
import { dockerRuntimeApiServers } from './test-support/docker-runtime-api-servers.js';
import { EngineProxy } from './test-support/engine-proxy.js';
import { call, runOnAgentServer } from './test-support/runtime-api-call.js';
import { startWithDyingSandbox } from './test-support/start-with-dying-sandbox.js';

const context = remoteApiTestContext();
const KEY = `runtime-api-key-${randomUUID()}`;
const SECRET = `session-secret-${randomUUID()}`;
const GRACE_SECONDS = 2;

context.describe('Runtime API starts that fail or reach no client (Docker, real engine)', () => {
  const proxies: EngineProxy[] = [];
  const { docker, image, namespace } = context;
  const servers = dockerRuntimeApiServers({
    apiKey: KEY,
    sessionKeySecret: SECRET,
    image,
    namespace,
    // Passes run on demand.
    defaults: { idleCheckIntervalSeconds: 3600 },
  });
  const serve = servers.serve;
  /** A server whose engine calls go through a proxy that can hold container starts back. */
  const serveProxied = async (options: Partial<RuntimeApiServerOptions> = {}) => {
    const proxy = await EngineProxy.start();
    proxies.push(proxy);
    const backend = new DockerRuntimeBackend({
      namespace,
      dockerOptions: { host: '127.0.0.1', port: proxy.port, protocol: 'http' },
    });
    return { proxy, server: await serve({ ...options, backend }) };
  };
  const start = (server: RuntimeApiServer, sessionId: string, signal?: AbortSignal) =>
    call(server.url, '/start', {
      apiKey: KEY,
      body: { image, session_id: sessionId },
      ...(signal && { signal }),
    });
  const containersOf = (sessionId: string) =>
    docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.sessionId}=${sessionId}`] },
    });
  /** The session's agent-server clock, read with its key (no activity, no fetch). */
  const clockOf = async (sessionId: string) => {
    const [container] = await containersOf(sessionId);
    const info = await docker.getContainer(container!.Id).inspect();
    const nonce = info.Config.Labels[RUNTIME_LABELS.keyNonce] ?? '';
    const port = info.NetworkSettings.Ports['8000/tcp']?.[0]?.HostPort;
    const key = deriveSessionKey(SECRET, sessionId, nonce);
    const url = `http://127.0.0.1:${port}`;
    return { url, key, clock: await fetchServerClock(url, key, { timeoutMs: 5000 }) };
  };

  afterEach(async () => {
    await servers.closeAll();
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  });

  afterAll(async () => {
    await context.cleanup();
  });

  it('answers a start whose sandbox stopped before the answer with 502 and its logs, leaving nothing', async () => {
    const { proxy, server } = await serveProxied();
    const sessionId = `dies-${randomUUID()}`;
    const failed = await startWithDyingSandbox({
      docker,
      proxy,
      sessionId,
      start: () => start(server, sessionId),
    });
    expect(failed.status).toBe(502);
    expect(failed.json.detail).toContain(
      `the sandbox of session ${sessionId} stopped as it started`,
    );
    expect(failed.json.detail).toContain('exited with code 137');
    expect(failed.json.detail).toContain('last log lines');
    expect(failed.json.detail).toContain(AGENT_SERVER_LISTENING_EVENT);
    expect(await containersOf(sessionId)).toEqual([]);
    expect((await call(server.url, `/sessions/${sessionId}`, { apiKey: KEY })).status).toBe(404);
    // The same id starts again.
    const again = await start(server, sessionId);
    expect(again.status).toBe(201);
    await call(server.url, '/stop', { apiKey: KEY, body: { runtime_id: again.json.runtime_id } });
  });

  it('a restarted server removes a session whose start reached no client, once the grace passed, and keeps fetched and used ones', async () => {
    const { proxy, server: first } = await serveProxied();
    proxy.holdStarts();
    const lost = `lost-${randomUUID()}`;
    const fetched = `fetched-${randomUUID()}`;
    const gone = new AbortController();
    const answers = [lost, fetched].map((sessionId) =>
      start(first, sessionId, gone.signal).catch((error: Error) => error),
    );
    await proxy.untilHeld(2);
    // The clients go away before any answer; the starts run on.
    gone.abort();
    for (const answer of await Promise.all(answers)) expect(answer).toBeInstanceOf(Error);
    proxy.release();
    // Both sandboxes came up (a list hands out no key and counts as no fetch).
    await pollUntil(
      () => call(first.url, '/sessions', { apiKey: KEY }),
      (list) =>
        list.json?.sessions?.filter(
          (session: { pod_status: string }) => session.pod_status === 'ready',
        ).length === 2,
      { what: 'both unanswered sessions to be ready' },
    );
    await first.close();

    const second = await serve({ unacknowledgedStartGraceSeconds: GRACE_SECONDS });
    // A client fetches one of them, and starts and uses another.
    await pollUntil(
      () => call(second.url, `/sessions/${fetched}`, { apiKey: KEY }),
      (answer) => answer.json?.pod_status === 'ready',
      { what: `session ${fetched} to be ready` },
    );
    const used = `used-${randomUUID()}`;
    const started = await start(second, used);
    expect(started.status).toBe(201);
    await waitUntilHealthy(started.json.url);
    // Activity within an agent-server's first second does not show: use it after that.
    await pollUntil(
      () => clockOf(used),
      ({ clock }) => clock.uptimeSeconds >= 1,
      { what: `${used}'s agent-server to be up a second` },
    );
    const ran = await runOnAgentServer(started.json.url, started.json.session_api_key, 'true');
    expect(ran.status).toBe(200);

    // Every agent-server has been up for the grace; only the fetched and the used one show it.
    for (const sessionId of [lost, fetched, used]) {
      await pollUntil(
        () => clockOf(sessionId),
        ({ clock }) => clock.uptimeSeconds >= GRACE_SECONDS,
        { what: `${sessionId}'s agent-server to be up for the grace` },
      );
    }
    const acknowledged = async (sessionId: string) =>
      isStartAcknowledged((await clockOf(sessionId)).clock);
    expect(await acknowledged(lost)).toBe(false);
    await pollUntil(() => acknowledged(fetched), Boolean, { what: `${fetched}'s fetch to show` });
    expect(await acknowledged(used)).toBe(true);

    const report = await second.reapSessions();
    expect(report.failures).toEqual([]);
    expect(report.reaped).toEqual([
      expect.objectContaining({ sessionId: lost, action: 'stop', reason: 'unacknowledged' }),
    ]);
    expect(await containersOf(lost)).toEqual([]);
    expect(await containersOf(fetched)).toHaveLength(1);
    expect(await containersOf(used)).toHaveLength(1);
    // The next pass keeps them too.
    expect((await second.reapSessions()).reaped).toEqual([]);
    const stillThere = await call(second.url, `/sessions/${fetched}`, { apiKey: KEY });
    expect([stillThere.status, stillThere.json.pod_status]).toEqual([200, 'ready']);
  });
});
