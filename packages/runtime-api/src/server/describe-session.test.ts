import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendSession } from '../backend/runtime-backend.js';
import { sessionLabels } from '../backend/session-labels.js';
import { describeSession } from './describe-session.js';
import type { RuntimeApiContext } from './runtime-api-context.js';
import { testRuntimeApiContext } from './test-support/test-runtime-api-context.js';

// A server on loopback that accepts connections and never answers: a hung agent-server.
let silent: net.Server;
const sockets = new Set<net.Socket>();
let accepted = 0;
let url = '';
let context: RuntimeApiContext;

beforeAll(async () => {
  silent = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
  context = testRuntimeApiContext({
    namespace: 'describe-test',
    sessionKeySecret: 'session-secret-0123456789-0123456789',
    signal: new AbortController().signal,
    readinessTimeoutMs: 200,
  });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

function runningSession(extra: Partial<BackendSession> = {}): BackendSession {
  return {
    labels: sessionLabels({
      namespace: 'describe-test',
      sessionId: 'session-1',
      runtimeId: 'a'.repeat(32),
      image: 'agent-workspace/agent-server:test',
      resourceFactor: 1,
      createdAt: new Date(0).toISOString(),
      keyNonce: 'b'.repeat(32),
    }),
    status: 'running',
    engineState: 'running',
    url,
    ...extra,
  };
}

describe('describeSession pod_status', () => {
  it('is running when the agent-server does not answer /health within readinessTimeoutMs', async () => {
    const before = accepted;
    const wire = await describeSession(context, runningSession(), { withKey: false });
    expect(wire?.pod_status).toBe('running');
    expect(accepted).toBeGreaterThan(before);
  });

  it('is ready without another probe when the session just answered a keyed request', async () => {
    const before = accepted;
    const wire = await describeSession(context, runningSession({ answered: true }), {
      withKey: true,
    });
    expect(wire?.pod_status).toBe('ready');
    expect(wire?.session_api_key).toMatch(/\S{16,}/);
    expect(accepted).toBe(before);
  });

  it('answered does not make a paused session ready', async () => {
    const paused = await describeSession(
      context,
      runningSession({ answered: true, status: 'paused' }),
      { withKey: false },
    );
    expect(paused?.pod_status).toBe('pending');
  });
});
