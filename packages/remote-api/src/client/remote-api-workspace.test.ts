import { WorkspaceError } from '@agent-workspace/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteAPIWorkspace } from './remote-api-workspace.js';
import {
  type DoubleReply,
  HttpPeerDouble,
  type RecordedRequest,
} from './test-support/http-peer-double.js';

const KEY = 'runtime-key-0123456789abcdef';
const RUNTIME_ID = 'b'.repeat(32);

/**
 * These tests script the Runtime API's answers (a test double of the HTTP peer) for what the
 * real server cannot be made to say on demand: fatal pod states, a stopped session, a start
 * race. The full lifecycle runs against the real server in the integration tests.
 */
describe('RemoteAPIWorkspace against a scripted Runtime API', () => {
  let peer: HttpPeerDouble | undefined;
  afterEach(async () => {
    await peer?.close();
    peer = undefined;
  });

  function wire(fields: Record<string, unknown>): DoubleReply {
    return {
      status: 200,
      json: {
        runtime_id: RUNTIME_ID,
        session_id: 'fixed-session',
        url: peer!.url,
        session_api_key: 'session-key-0123456789',
        status: 'running',
        pod_status: 'pending',
        ...fields,
      },
    };
  }

  function routes(request: RecordedRequest): string {
    return `${request.method} ${request.url}`;
  }

  function options(extra: Record<string, unknown> = {}) {
    return {
      runtimeApiUrl: peer!.url,
      runtimeApiKey: KEY,
      image: 'agent-workspace/agent-server:dev',
      sessionId: 'fixed-session',
      startupTimeoutMs: 10_000,
      ...extra,
    };
  }

  it.each(['failed', 'crashloopbackoff', 'unknown'])(
    'fails the start on pod_status %s with the runtime message, and stops what it started',
    async (podStatus) => {
      let started = false;
      peer = await HttpPeerDouble.start((request) => {
        const route = routes(request);
        if (route === 'POST /start') {
          started = true;
          return wire({});
        }
        if (route === 'POST /stop')
          return { status: 200, json: { runtime_id: RUNTIME_ID, status: 'stopped' } };
        if (!started) return { status: 404, json: { detail: 'no such session' } };
        return wire({ pod_status: podStatus, message: 'exit code 137: OOMKilled' });
      });
      const error = await RemoteAPIWorkspace.create(options()).catch((reason: unknown) => reason);
      expect(WorkspaceError.isInstance(error, 'PROVISIONING_ERROR')).toBe(true);
      const failure = error as WorkspaceError;
      expect(failure.message).toContain('exit code 137: OOMKilled');
      expect(failure.message).toContain(podStatus);
      expect(failure.details.podStatus).toBe(podStatus);
      const sent = peer.requests.map(routes);
      expect(sent[0]).toBe('GET /sessions/fixed-session');
      expect(sent).toContain('POST /start');
      expect(sent.at(-1)).toBe('POST /stop');
      expect(JSON.parse(peer.requests.at(-1)!.body)).toEqual({ runtime_id: RUNTIME_ID });
    },
  );

  it('refuses a stopped session with its message, and leaves it alone with keepAlive', async () => {
    peer = await HttpPeerDouble.start(() =>
      wire({ status: 'stopped', pod_status: 'failed', message: 'container exited with code 1' }),
    );
    const error = await RemoteAPIWorkspace.create(options({ keepAlive: true })).catch(
      (reason: unknown) => reason,
    );
    expect(WorkspaceError.isInstance(error, 'PROVISIONING_ERROR')).toBe(true);
    expect((error as WorkspaceError).message).toContain(
      'the Runtime API session fixed-session has stopped: container exited with code 1',
    );
    expect(peer.requests.map(routes)).toEqual(['GET /sessions/fixed-session']);
  });

  it('never stops a session whose start the Runtime API refused (409: someone else holds it)', async () => {
    peer = await HttpPeerDouble.start((request) =>
      routes(request) === 'POST /start'
        ? {
            status: 409,
            json: { detail: 'session fixed-session already exists with another image' },
          }
        : { status: 404, json: { detail: 'no such session' } },
    );
    const error = await RemoteAPIWorkspace.create(options()).catch((reason: unknown) => reason);
    expect(WorkspaceError.isInstance(error, 'ALREADY_EXISTS')).toBe(true);
    expect((error as WorkspaceError).message).toContain('already exists with another image');
    expect(peer.requests.map(routes)).toEqual(['GET /sessions/fixed-session', 'POST /start']);
  });
});
