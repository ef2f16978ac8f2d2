import type { FastifyInstance } from 'fastify';
import { buildRuntimeApiApp } from './build-runtime-api-app.js';
import type { WarmPoolImageStats } from './image-pool.js';
import { type ReapReport, reapSessions } from './reap-sessions.js';
import type { RuntimeApiContext } from './runtime-api-context.js';
import {
  type ResolvedRuntimeApiServerOptions,
  type RuntimeApiServerOptions,
  resolveRuntimeApiServerOptions,
} from './runtime-api-server-options.js';
import { sessionSandbox } from './session-allow-hosts.js';
import { StartGate } from './start-gate.js';
import { WarmPool } from './warm-pool.js';

/** A running Runtime API server. */
export interface RuntimeApiServer extends AsyncDisposable {
  /** Base URL clients reach it at, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  /** The Fastify app (for `inject` in tests, or more routes). */
  readonly app: FastifyInstance;
  /** The options after defaults (they hold the keys: never log them). */
  readonly options: ResolvedRuntimeApiServerOptions;
  /**
   * Runs one reaping pass now (waiting for a pass the timer started, if one runs): idle sessions
   * with `idleTimeoutSeconds`, and starts no client acknowledged within
   * `unacknowledgedStartGraceSeconds` (see `reapSessions`).
   */
  reapSessions(): Promise<ReapReport>;
  /** The warm pools' numbers per image (`GET /pool`); empty without `warmPool`. */
  warmPoolStats(): WarmPoolImageStats[];
  /**
   * Stops the reaping timer, ends probes and backend calls in flight, stops listening and
   * removes the unclaimed warm sandboxes; idempotent. Sessions (claimed sandboxes included)
   * keep running: they live in the engine, and a server started with the same secret and
   * namespace takes them over.
   */
  close(): Promise<void>;
}

/**
 * Starts a Runtime API server (the OpenHands runtime API that provisions agent-server sandboxes)
 * on `options.backend`. The engine is the only record of sessions: the server keeps none in
 * memory, and session keys are derived from `sessionKeySecret`, never stored. Throws
 * `INVALID_CONFIG` naming the bad option.
 *
 * @example
 * ```ts
 * await using server = await createRuntimeApiServer({
 *   apiKeys: [process.env.RUNTIME_API_KEY!],
 *   sessionKeySecret: process.env.RUNTIME_API_SESSION_SECRET!,
 *   backend: new DockerRuntimeBackend({ namespace: 'dev' }),
 *   images: ['agent-workspace/agent-server:latest'],
 * });
 * console.log(server.url);
 * ```
 */
export async function createRuntimeApiServer(
  options: RuntimeApiServerOptions,
): Promise<RuntimeApiServer> {
  const resolved = resolveRuntimeApiServerOptions(options);
  const shutdown = new AbortController();
  let built: { app: FastifyInstance; context: RuntimeApiContext } | undefined;
  try {
    built = await buildRuntimeApiApp({
      options: resolved,
      backend: resolved.backend,
      signal: shutdown.signal,
      startGate: new StartGate(),
    });
    await built.app.listen({ host: resolved.host, port: resolved.port });
  } catch (error) {
    await built?.app.close();
    throw error;
  }
  const { app: listening, context } = built;
  // The options refuse a warm pool on a backend without warm sandboxes.
  const sandboxes = resolved.backend.warmSandboxes;
  if (resolved.warmPool.length > 0 && sandboxes) {
    context.warmPool = new WarmPool({
      backend: resolved.backend,
      sandboxes,
      entries: resolved.warmPool,
      sessionKeySecret: resolved.sessionKeySecret,
      resources: resolved.resources,
      sandbox: sessionSandbox(resolved, undefined),
      probeTimeoutMs: resolved.readinessTimeoutMs,
      log: context.log,
    });
    context.warmPool.start();
  }

  let pass: Promise<ReapReport> | undefined;
  const reap = (): Promise<ReapReport> => {
    pass ??= reapSessions(context).finally(() => {
      pass = undefined;
    });
    return pass;
  };
  const timer = setInterval(() => {
    if (pass) return;
    reap().catch((error: unknown) => {
      if (!shutdown.signal.aborted) context.log.warn({ err: error }, 'reaping failed');
    });
  }, resolved.idleCheckIntervalSeconds * 1000);
  timer.unref();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(timer);
      shutdown.abort();
      await listening.close();
      await pass?.catch(() => undefined);
      await context.warmPool?.close();
    })();
    return closing;
  };
  const address = listening.server.address();
  const port = typeof address === 'object' && address ? address.port : resolved.port;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  // A wildcard address is reached through loopback.
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  return {
    url: `http://${reachable}:${port}`,
    app: listening,
    options: resolved,
    reapSessions: async () => {
      // A timer pass in flight may predate the caller's changes: run a fresh one after it.
      await pass?.catch(() => undefined);
      return reap();
    },
    warmPoolStats: () => context.warmPool?.stats() ?? [],
    close,
    [Symbol.asyncDispose]: close,
  };
}
