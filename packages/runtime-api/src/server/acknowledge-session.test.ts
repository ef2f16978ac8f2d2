import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AgentServer, createAgentServer } from '@agent-workspace/agent-server';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { fastify } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BackendSession } from '../backend/runtime-backend.js';
import { RUNTIME_LABELS, sessionLabels } from '../backend/session-labels.js';
import { RecordingTcpProxy } from '../remote-api-workspace/test-support/recording-tcp-proxy.js';
import {
  ACTIVITY_RETRY_DELAYS_MS,
  acknowledgeSession,
  isStartAcknowledged,
} from './acknowledge-session.js';
import { fetchServerClock } from './probe-agent-server.js';
import type { RuntimeApiContext } from './runtime-api-context.js';
import { deriveSessionKey, sessionKeyHash } from './session-key.js';
import { testRuntimeApiContext } from './test-support/test-runtime-api-context.js';

const SECRET = 'session-secret-0123456789-0123456789';
const NONCE = 'ab'.repeat(16);
const shutdown = new AbortController();
const servers: AgentServer[] = [];
const proxies: RecordingTcpProxy[] = [];
let workingDir = '';
let context: RuntimeApiContext;

beforeAll(async () => {
  workingDir = await mkdtemp(path.join(tmpdir(), 'acknowledge-session-'));
  context = testRuntimeApiContext({
    namespace: 'acknowledge-test',
    sessionKeySecret: SECRET,
    signal: shutdown.signal,
  });
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  shutdown.abort();
  await rm(workingDir, { recursive: true, force: true });
});

/** A real agent-server accepting the key of session `sessionId`, as a running session. */
async function runningSession(
  sessionId: string,
  labels: Record<string, string> = {},
): Promise<{ session: BackendSession; key: string }> {
  const key = deriveSessionKey(SECRET, sessionId, NONCE);
  const server = await createAgentServer({
    port: 0,
    workingDir,
    sessionApiKeyHashes: [sessionKeyHash(key)],
    logLevel: 'silent',
  });
  servers.push(server);
  const session: BackendSession = {
    labels: {
      ...sessionLabels({
        namespace: 'acknowledge-test',
        sessionId,
        runtimeId: 'cd'.repeat(16),
        image: 'agent-workspace/agent-server:test',
        resourceFactor: 1,
        createdAt: new Date().toISOString(),
        keyNonce: NONCE,
      }),
      ...labels,
    },
    status: 'running',
    engineState: 'running',
    url: server.url,
  };
  return { session, key };
}

const clockOf = (session: BackendSession, key: string) =>
  fetchServerClock(session.url ?? '', key, { timeoutMs: 2000 });

/** Waits until the agent-server of `session` has been up for a second (its clock is whole seconds). */
async function upForASecond(session: BackendSession, key: string): Promise<void> {
  await vi.waitFor(
    async () => expect((await clockOf(session, key)).uptimeSeconds).toBeGreaterThanOrEqual(1),
    { timeout: 5000, interval: 100 },
  );
}

/** `session` reached through a {@link RecordingTcpProxy} in front of its agent-server. */
async function behindProxy(
  session: BackendSession,
): Promise<{ proxied: BackendSession; proxy: RecordingTcpProxy }> {
  const proxy = await RecordingTcpProxy.start('127.0.0.1', Number(new URL(session.url ?? '').port));
  proxies.push(proxy);
  return { proxied: { ...session, url: proxy.url }, proxy };
}

const RECORD = AGENT_SERVER_ROUTES.gitChanges;

describe('acknowledgeSession', () => {
  it('records a fetch that the agent-server clock shows, once it has been up a second', async () => {
    const { session, key } = await runningSession('fetched');
    const fresh = await clockOf(session, key);
    expect(isStartAcknowledged(fresh)).toBe(false);
    // Asking the clock is no activity.
    await vi.waitFor(
      async () => expect((await clockOf(session, key)).uptimeSeconds).toBeGreaterThanOrEqual(1),
      {
        timeout: 5000,
        interval: 100,
      },
    );
    expect(isStartAcknowledged(await clockOf(session, key))).toBe(false);

    const acknowledged = await acknowledgeSession(context, session);
    expect(acknowledged).toEqual({ ...session, answered: true });
    expect(isStartAcknowledged(await clockOf(session, key))).toBe(true);
  });

  it('records a fetch within the first second a second later', async () => {
    const { session, key } = await runningSession('early');
    expect((await acknowledgeSession(context, session)).answered).toBe(true);
    await vi.waitFor(
      async () => expect(isStartAcknowledged(await clockOf(session, key))).toBe(true),
      {
        timeout: 5000,
        interval: 100,
      },
    );
  });

  it('records a fetch again, in the background, when the agent-server did not answer', async () => {
    const { session, key } = await runningSession('cut-off');
    await upForASecond(session, key);
    const { proxied, proxy } = await behindProxy(session);
    proxy.cut(RECORD, 1);

    expect((await acknowledgeSession(context, proxied)).answered).toBe(true);
    expect(proxy.seen(RECORD)).toBe(1);
    expect(isStartAcknowledged(await clockOf(session, key))).toBe(false);
    await vi.waitFor(
      async () => expect(isStartAcknowledged(await clockOf(session, key))).toBe(true),
      { timeout: (ACTIVITY_RETRY_DELAYS_MS[0] ?? 0) + 4000, interval: 100 },
    );
    expect(proxy.seen(RECORD)).toBe(2);
  });

  const RETRIES_MS = ACTIVITY_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);

  it(
    'gives up after the last retry with a warning that names the session, never its key',
    async () => {
      const { session, key } = await runningSession('never-answers');
      await upForASecond(session, key);
      const { proxied, proxy } = await behindProxy(session);
      const attempts = 1 + ACTIVITY_RETRY_DELAYS_MS.length;
      proxy.cut(RECORD, attempts);
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const logged = { ...context, log: fastify({ logger: { level: 'warn', stream } }).log };

      expect((await acknowledgeSession(logged, proxied)).answered).toBe(true);
      await vi.waitFor(() => expect(lines).toHaveLength(1), {
        timeout: RETRIES_MS + 5000,
        interval: 200,
      });
      expect(JSON.parse(lines[0] ?? '')).toMatchObject({
        level: 40,
        sessionId: 'never-answers',
        attempts,
      });
      expect(lines[0]).not.toContain(key);
      expect(proxy.seen(RECORD)).toBe(attempts);
      expect(isStartAcknowledged(await clockOf(session, key))).toBe(false);
    },
    RETRIES_MS + 15_000,
  );

  it('does not ask again when the agent-server refused the record', async () => {
    const { session, key } = await runningSession('refused');
    await upForASecond(session, key);
    const { proxied, proxy } = await behindProxy(session);
    // Another nonce derives another key, which the agent-server refuses (401).
    const foreign: BackendSession = {
      ...proxied,
      labels: { ...proxied.labels, [RUNTIME_LABELS.keyNonce]: 'ef'.repeat(16) },
    };
    expect((await acknowledgeSession(context, foreign)).answered).toBe(true);
    await sleep((ACTIVITY_RETRY_DELAYS_MS[0] ?? 0) + 500);
    expect(proxy.seen(RECORD)).toBe(1);
    expect(isStartAcknowledged(await clockOf(session, key))).toBe(false);
  });

  it('leaves sessions alone that need no acknowledgement or cannot give one', async () => {
    const { session, key } = await runningSession('exempt', {
      [RUNTIME_LABELS.reapIfUnacknowledged]: 'false',
    });
    await vi.waitFor(
      async () => expect((await clockOf(session, key)).uptimeSeconds).toBeGreaterThanOrEqual(1),
      {
        timeout: 5000,
        interval: 100,
      },
    );
    expect(await acknowledgeSession(context, session)).toBe(session);
    expect(isStartAcknowledged(await clockOf(session, key))).toBe(false);

    const labelled = { ...session.labels, [RUNTIME_LABELS.reapIfUnacknowledged]: 'true' };
    const paused: BackendSession = { ...session, labels: labelled, status: 'paused' };
    expect(await acknowledgeSession(context, paused)).toBe(paused);
    // Another nonce derives another key: the agent-server answers (its /server_info is open),
    // but refuses the keyed request, so nothing is recorded.
    const foreign: BackendSession = {
      ...session,
      labels: { ...labelled, [RUNTIME_LABELS.keyNonce]: 'ef'.repeat(16) },
    };
    expect((await acknowledgeSession(context, foreign)).answered).toBe(true);
    expect(isStartAcknowledged(await clockOf(session, key))).toBe(false);
  });
});
