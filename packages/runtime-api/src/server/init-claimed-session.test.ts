import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AgentServer, createAgentServer } from '@agent-workspace/agent-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackendSession } from '../backend/runtime-backend.js';
import { RUNTIME_LABELS, warmSandboxLabels } from '../backend/session-labels.js';
import { acknowledgeSession } from './acknowledge-session.js';
import { initClaimedSession } from './init-claimed-session.js';
import { probeStatus } from './probe-agent-server.js';
import type { RuntimeApiContext } from './runtime-api-context.js';
import { deriveClaimedKey, deriveSandboxKey, sessionKeyHash } from './session-key.js';
import { testRuntimeApiContext } from './test-support/test-runtime-api-context.js';
import { warmSandboxInitState } from './warm-sandbox-init.js';

const SECRET = 'session-secret-0123456789-0123456789';
const NONCE = 'ab'.repeat(16);
const RUNTIME_ID = 'cd'.repeat(16);
const shutdown = new AbortController();
const servers: AgentServer[] = [];
const probe = { timeoutMs: 2000 };
let workingDir = '';
let context: RuntimeApiContext;

beforeAll(async () => {
  workingDir = await mkdtemp(path.join(tmpdir(), 'init-claimed-session-'));
  context = testRuntimeApiContext({
    namespace: 'claimed-init-test',
    sessionKeySecret: SECRET,
    signal: shutdown.signal,
    readinessTimeoutMs: 2000,
  });
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(async () => {
  shutdown.abort();
  await rm(workingDir, { recursive: true, force: true });
});

/**
 * What a server killed between a claim's rename and its `POST /api/init` leaves: a real
 * agent-server started dormant with the sandbox key, labelled as a warm sandbox, bound to
 * `sessionId` (the engine reads the session id from the claimed container's name).
 */
async function interruptedClaim(
  sessionId: string,
  labels: Record<string, string> = {},
): Promise<{ session: BackendSession; key: string; initKey: string }> {
  const initKey = deriveSandboxKey(SECRET, RUNTIME_ID, NONCE);
  const server = await createAgentServer({
    port: 0,
    workingDir,
    sessionApiKeyHashes: [sessionKeyHash(initKey)],
    deferInit: true,
    logLevel: 'silent',
  });
  servers.push(server);
  const session: BackendSession = {
    labels: {
      ...warmSandboxLabels({
        namespace: 'claimed-init-test',
        runtimeId: RUNTIME_ID,
        image: 'agent-workspace/agent-server:test',
        resourceFactor: 1,
        createdAt: new Date().toISOString(),
        keyNonce: NONCE,
      }),
      [RUNTIME_LABELS.sessionId]: sessionId,
      ...labels,
    },
    status: 'running',
    engineState: 'running',
    url: server.url,
  };
  return { session, key: deriveClaimedKey(SECRET, sessionId, RUNTIME_ID, NONCE), initKey };
}

const keyedStatus = (url: string | undefined, key: string) =>
  probeStatus(
    url ?? '',
    { session: key },
    { method: 'GET', path: '/api/bash/bash_events/search' },
    probe,
  );

describe('initClaimedSession', () => {
  it("gives a claimed sandbox left dormant its session's key when a client fetches the session", async () => {
    const { session, key, initKey } = await interruptedClaim('interrupted');
    expect(await warmSandboxInitState(session.url ?? '', probe)).toBe('dormant');
    expect(await keyedStatus(session.url, key)).toBe(401);

    const acknowledged = await acknowledgeSession(context, session);
    expect(acknowledged).toEqual({ ...session, answered: true });
    expect(await warmSandboxInitState(session.url ?? '', probe)).toBe('ready');
    expect(await keyedStatus(session.url, key)).toBe(200);
    expect(await keyedStatus(session.url, initKey)).toBe(401);
    // Done once: an initialized sandbox is left as it is.
    expect(await initClaimedSession(context, session)).toBe(false);
  });

  it('leaves alone a sandbox whose claim is under way, or of a claim made before deferred init', async () => {
    const { session } = await interruptedClaim('busy');
    const claiming = { ...context, warmPool: { isClaiming: () => true } as never };
    expect(await initClaimedSession(claiming, session)).toBe(false);
    expect(await warmSandboxInitState(session.url ?? '', probe)).toBe('dormant');

    const { [RUNTIME_LABELS.deferredInit]: _, ...older } = session.labels;
    expect(await initClaimedSession(context, { ...session, labels: older })).toBe(false);
    const paused: BackendSession = { ...session, status: 'paused' };
    expect(await initClaimedSession(context, paused)).toBe(false);
    expect(await warmSandboxInitState(session.url ?? '', probe)).toBe('dormant');
  });
});
