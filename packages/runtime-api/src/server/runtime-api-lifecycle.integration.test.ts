import { randomUUID } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { keyedStatus, pollUntil } from '../test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { createRuntimeApiServer, type RuntimeApiServer } from './create-runtime-api-server.js';
import type { RuntimeApiServerOptions } from './runtime-api-server-options.js';
import { call, runOnAgentServer } from './test-support/runtime-api-call.js';

const context = remoteApiTestContext();
const KEY = `runtime-api-key-${randomUUID()}`;
const SECRET = `session-secret-${randomUUID()}`;

context.describe('Runtime API server lifecycle: restart and idle reaping', () => {
  const servers: RuntimeApiServer[] = [];
  const serve = async (options: Partial<RuntimeApiServerOptions> = {}) => {
    const server = await createRuntimeApiServer({
      apiKeys: [KEY],
      sessionKeySecret: SECRET,
      // A new backend object each time: nothing but the engine carries over.
      backend: new DockerRuntimeBackend({ namespace: context.namespace }),
      images: [context.image],
      port: 0,
      logLevel: 'silent',
      // Long enough for a live session's agent-server to answer on a loaded machine (CI runs ten
      // suites at once): a probe that times out is a failure, and the session is not reaped.
      readinessTimeoutMs: 5_000,
      ...options,
    });
    servers.push(server);
    return server;
  };
  const api = (server: RuntimeApiServer, path: string, body?: unknown) =>
    call(server.url, path, { apiKey: KEY, body });
  const startReady = async (server: RuntimeApiServer, sessionId: string) => {
    const started = await api(server, '/start', { image: context.image, session_id: sessionId });
    expect(started.status).toBe(201);
    await pollUntil(
      () => api(server, `/sessions/${sessionId}`),
      (answer) => answer.json?.pod_status === 'ready',
      { what: `session ${sessionId} to be ready` },
    );
    return started.json as { runtime_id: string; url: string; session_api_key: string };
  };
  /** Waits until the session's agent-server reports an idle time of at least `seconds`. */
  const idleFor = (session: { url: string; session_api_key: string }, seconds: number) =>
    pollUntil(
      () =>
        call(session.url, '/server_info', {
          headers: { 'x-session-api-key': session.session_api_key },
        }),
      (answer) => answer.json?.idle_time >= seconds,
      { what: `idle_time >= ${seconds}` },
    );

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    // A test that failed midway leaves sessions that a later test's reaping pass would count.
    await context.cleanup();
  });

  it('a restarted server with the same secret knows every session and derives the same keys', async () => {
    const first = await serve();
    const sessionId = `restart-${randomUUID()}`;
    const session = await startReady(first, sessionId);
    await first.close();
    await first.close();
    expect((await call(session.url, '/health')).status).toBe(200);

    const second = await serve();
    const list = await api(second, '/sessions');
    expect(list.json.sessions).toEqual([
      expect.objectContaining({ session_id: sessionId, runtime_id: session.runtime_id }),
    ]);
    const got = await api(second, `/sessions/${sessionId}`);
    expect(got.json).toMatchObject({
      runtime_id: session.runtime_id,
      url: session.url,
      session_api_key: session.session_api_key,
      pod_status: 'ready',
    });
    expect(await keyedStatus(got.json.url, got.json.session_api_key)).toBe(200);

    // Another secret derives other keys, which the agent-server refuses.
    const stranger = await serve({ sessionKeySecret: `${SECRET}-other` });
    const foreign = await api(stranger, `/sessions/${sessionId}`);
    expect(foreign.json.session_api_key).not.toBe(session.session_api_key);
    expect(await keyedStatus(session.url, foreign.json.session_api_key)).toBe(401);
    await api(second, '/stop', { runtime_id: session.runtime_id });
  });

  it('reaping stops sessions idle past idleTimeoutSeconds and spares busy ones', async () => {
    // The timer never fires during the test: passes run on demand.
    const server = await serve({ idleTimeoutSeconds: 1, idleCheckIntervalSeconds: 3600 });
    const idle = await startReady(server, `idle-${randomUUID()}`);
    const busy = await startReady(server, `busy-${randomUUID()}`);
    await idleFor(idle, 2);
    const ran = await runOnAgentServer(busy.url, busy.session_api_key, 'true');
    expect(ran.status).toBe(200);

    const report = await server.reapSessions();
    expect(report.checked).toBe(2);
    expect(report.failures).toEqual([]);
    expect(report.reaped).toEqual([
      expect.objectContaining({ runtimeId: idle.runtime_id, action: 'stop', reason: 'idle' }),
    ]);
    expect(report.reaped[0]!.idleTimeSeconds).toBeGreaterThan(1);
    const sessions = (await api(server, '/sessions')).json.sessions;
    expect(sessions.map((session: { runtime_id: string }) => session.runtime_id)).toEqual([
      busy.runtime_id,
    ]);
    await api(server, '/stop', { runtime_id: busy.runtime_id });
  });

  it('reaping pauses idle sessions with idleAction pause, and a resumed one works again', async () => {
    const server = await serve({
      idleTimeoutSeconds: 1,
      idleAction: 'pause',
      idleCheckIntervalSeconds: 3600,
    });
    const sessionId = `pausing-${randomUUID()}`;
    const session = await startReady(server, sessionId);
    await idleFor(session, 2);
    // A pass whose probe or pause fails under load leaves the session to the next pass, as the
    // timer's would; the last pass's report (failures included) is in the timeout's message.
    const report = await pollUntil(
      () => server.reapSessions(),
      (answer) => answer.reaped.length > 0,
      { what: 'a reaping pass to pause the idle session', timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(report.reaped).toEqual([
      expect.objectContaining({ sessionId, runtimeId: session.runtime_id, action: 'pause' }),
    ]);
    expect((await api(server, `/sessions/${sessionId}`)).json.status).toBe('paused');
    // A paused session is not looked at again.
    expect((await server.reapSessions()).checked).toBe(0);
    expect((await api(server, '/resume', { runtime_id: session.runtime_id })).status).toBe(200);
    const ran = await runOnAgentServer(session.url, session.session_api_key, 'echo back');
    expect(ran.json.stdout).toBe('back\n');
    await api(server, '/stop', { runtime_id: session.runtime_id });
  });

  it('a paused session the engine stopped stays paused, and /resume brings it back with its files', async () => {
    const server = await serve();
    const paused = await startReady(server, `restart-paused-${randomUUID()}`);
    const crashed = await startReady(server, `restart-crashed-${randomUUID()}`);
    const wrote = await runOnAgentServer(
      paused.url,
      paused.session_api_key,
      'echo kept > /workspace/kept.txt',
    );
    expect(wrote.status).toBe(200);
    expect((await api(server, '/pause', { runtime_id: paused.runtime_id })).status).toBe(200);
    // What an engine restart does to every container: the frozen one comes back exited.
    for (const runtimeId of [paused.runtime_id, crashed.runtime_id]) {
      const [container] = await context.docker.listContainers({
        filters: { label: [`${RUNTIME_LABELS.runtimeId}=${runtimeId}`] },
      });
      await context.docker.getContainer(container!.Id).kill();
    }

    // A new server: the pause is read back from the engine, not from memory.
    const restarted = await serve();
    const listed = (await api(restarted, '/sessions')).json.sessions;
    const byRuntime = new Map(
      listed.map((session: { runtime_id: string }) => [session.runtime_id, session]),
    );
    expect(byRuntime.get(paused.runtime_id)).toMatchObject({
      status: 'paused',
      pod_status: 'pending',
      message: expect.stringContaining('/resume'),
    });
    expect(byRuntime.get(crashed.runtime_id)).toMatchObject({ status: 'stopped' });
    expect((await api(restarted, '/resume', { runtime_id: crashed.runtime_id })).status).toBe(409);
    // Pausing it again changes nothing.
    const pausedAgain = await api(restarted, '/pause', { runtime_id: paused.runtime_id });
    expect(pausedAgain.json).toMatchObject({ status: 'paused' });

    const resumed = await api(restarted, '/resume', { runtime_id: paused.runtime_id });
    expect(resumed.status).toBe(200);
    expect(resumed.json).toMatchObject({ status: 'running', pod_status: 'ready' });
    expect(resumed.json.url).not.toBe(paused.url);
    const read = await runOnAgentServer(
      resumed.json.url,
      resumed.json.session_api_key,
      'cat /workspace/kept.txt',
    );
    expect(read.json.stdout).toBe('kept\n');

    // Stop removes the container and whatever recorded its pause.
    expect((await api(restarted, '/pause', { runtime_id: paused.runtime_id })).status).toBe(200);
    await api(restarted, '/stop', { runtime_id: paused.runtime_id });
    await api(restarted, '/stop', { runtime_id: crashed.runtime_id });
    const { Volumes } = await context.docker.listVolumes({
      filters: { label: [`${RUNTIME_LABELS.runtimeId}=${paused.runtime_id}`] },
    });
    expect(Volumes ?? []).toEqual([]);
  });

  it('a session whose agent-server does not answer fails alone; the pass goes on', async () => {
    const server = await serve({
      idleTimeoutSeconds: 1,
      idleCheckIntervalSeconds: 3600,
    });
    const frozen = await startReady(server, `frozen-${randomUUID()}`);
    const idle = await startReady(server, `idle-${randomUUID()}`);
    const [container] = await context.docker.listContainers({
      filters: { label: [`${RUNTIME_LABELS.runtimeId}=${frozen.runtime_id}`] },
    });
    // SIGSTOP the agent-server: the container runs on, its port accepts, nothing answers.
    const exec = await context.docker.getContainer(container!.Id).exec({
      User: '0',
      Cmd: [
        'sh',
        '-c',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
        'for p in /proc/[0-9]*; do case "$(tr "\\0" " " < $p/cmdline)" in node*agent-server-launcher.cjs*) kill -STOP ${p#/proc/};; esac; done',
      ],
    });
    await exec
      .start({ Detach: false })
      .then((stream) => new Promise((resolve) => stream.on('end', resolve).resume()));
    await idleFor(idle, 2);

    const report = await server.reapSessions();
    expect(report.reaped.map((reaped) => reaped.runtimeId)).toEqual([idle.runtime_id]);
    expect(report.failures).toEqual([
      expect.objectContaining({ runtimeId: frozen.runtime_id, reason: expect.any(String) }),
    ]);
    const listed = (await api(server, '/sessions')).json.sessions;
    expect(listed).toEqual([
      expect.objectContaining({ runtime_id: frozen.runtime_id, pod_status: 'running' }),
    ]);
    await api(server, '/stop', { runtime_id: frozen.runtime_id });
  });

  it('the reaping timer runs on its own, and without idleTimeoutSeconds nothing is reaped', async () => {
    const calm = await serve();
    const session = await startReady(calm, `timer-${randomUUID()}`);
    await idleFor(session, 2);
    expect(await calm.reapSessions()).toEqual({ checked: 0, reaped: [], failures: [] });
    await calm.close();

    await serve({ idleTimeoutSeconds: 1, idleCheckIntervalSeconds: 0.2 });
    const checker = await serve();
    await pollUntil(
      () => api(checker, '/sessions'),
      (answer) => answer.json?.sessions.length === 0,
      { what: 'the timer to reap the idle session', timeoutMs: 30_000 },
    );
  });
});
