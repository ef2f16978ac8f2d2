import { fastify } from 'fastify';
import { DockerRuntimeBackend } from '../../backend/docker-runtime-backend.js';
import type { RuntimeApiContext } from '../runtime-api-context.js';
import { resolveRuntimeApiServerOptions } from '../runtime-api-server-options.js';
import { StartGate } from '../start-gate.js';

/** Options of {@link testRuntimeApiContext}. */
export interface TestRuntimeApiContextOptions {
  /** The backend's label namespace. */
  namespace: string;
  /** The server's session key secret (at least 32 characters). */
  sessionKeySecret: string;
  /** Aborted when the test's server would close. */
  signal: AbortSignal;
  /** Longest one agent-server probe may take; the server's default when unset. */
  readinessTimeoutMs?: number;
}

/**
 * The context a Runtime API server gives its parts, for tests of one part against real
 * agent-servers: a Docker backend that connects lazily (nothing asks an engine until a backend
 * call), no warm pool, a silent log.
 */
export function testRuntimeApiContext(options: TestRuntimeApiContextOptions): RuntimeApiContext {
  const backend = new DockerRuntimeBackend({ namespace: options.namespace });
  return {
    options: resolveRuntimeApiServerOptions({
      apiKeys: ['api-key-0123456789'],
      sessionKeySecret: options.sessionKeySecret,
      backend,
      images: ['agent-workspace/agent-server:test'],
      readinessTimeoutMs: options.readinessTimeoutMs,
    }),
    backend,
    signal: options.signal,
    startGate: new StartGate(),
    log: fastify({ logger: false }).log,
  };
}
