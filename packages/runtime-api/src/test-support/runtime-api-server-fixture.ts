import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { RuntimeBackend } from '../backend/runtime-backend.js';
import {
  createRuntimeApiServer,
  type RuntimeApiServer,
} from '../server/create-runtime-api-server.js';
import type { RuntimeApiServerOptions } from '../server/runtime-api-server-options.js';
import { type Answer, type CallOptions, call } from '../server/test-support/runtime-api-call.js';
import { pollUntil } from './agent-server-probe.js';
import type { RemoteApiTestContext } from './remote-api-test-context.js';

/** Options of {@link runtimeApiServerFixture}: server options over the test defaults. */
export interface RuntimeApiServerFixtureOptions extends Partial<RuntimeApiServerOptions> {
  /** Where the server runs its sessions. */
  backend: RuntimeBackend;
  /** Bound of each {@link RuntimeApiServerFixture.api} call that sets none; `call`'s default when unset. */
  callTimeoutMs?: number | undefined;
}

/** A Runtime API server run for a suite, with the key it accepts. */
export interface RuntimeApiServerFixture {
  /** The Runtime API key the server accepts. */
  readonly apiKey: string;
  /** The running server; throws when it did not start. */
  readonly server: RuntimeApiServer;
  /** One request to the server with {@link apiKey}; never throws for an HTTP status. */
  api(path: string, options?: CallOptions): Promise<Answer>;
  /** Polls `GET /sessions/{sessionId}` until the session is ready, and returns that answer. */
  ready(sessionId: string): Promise<Answer>;
}

/**
 * Runs a Runtime API server for the enclosing suite (or file): started in `beforeAll` — unless
 * `context` is skipped — with a fresh API key and session key secret, `context`'s image, a free
 * port and no logs, `options` over those; closed in `afterAll`, which then cleans `context` up.
 */
export function runtimeApiServerFixture(
  context: RemoteApiTestContext,
  options: RuntimeApiServerFixtureOptions,
): RuntimeApiServerFixture {
  const apiKey = `runtime-api-key-${randomUUID()}`;
  let server: RuntimeApiServer | undefined;

  beforeAll(async () => {
    if (context.skipReason) return;
    // Read now, not when the suite is collected: an option may be a getter of a value that the
    // file's own `beforeAll` sets (a port).
    const { callTimeoutMs: _callTimeoutMs, ...serverOptions } = options;
    server = await createRuntimeApiServer({
      apiKeys: [apiKey],
      sessionKeySecret: `session-secret-${randomUUID()}`,
      images: [context.image],
      port: 0,
      logLevel: 'silent',
      ...serverOptions,
    });
  });
  afterAll(async () => {
    await server?.close();
    await context.cleanup();
  });

  const fixture: RuntimeApiServerFixture = {
    apiKey,
    get server() {
      if (!server) throw new Error('the Runtime API server did not start');
      return server;
    },
    api: (path, callOptions = {}) =>
      call(fixture.server.url, path, { apiKey, timeoutMs: options.callTimeoutMs, ...callOptions }),
    ready: (sessionId) =>
      pollUntil(
        () => fixture.api(`/sessions/${sessionId}`),
        (answer) => answer.json?.pod_status === 'ready',
        { what: `session ${sessionId} to be ready` },
      ),
  };
  return fixture;
}
