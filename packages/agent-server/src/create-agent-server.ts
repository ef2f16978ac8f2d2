import { stat } from 'node:fs/promises';
import { invalidArgument } from '@agent-workspace/core';
import type { FastifyInstance } from 'fastify';
import {
  type AgentServerOptions,
  type ResolvedAgentServerOptions,
  resolveAgentServerOptions,
} from './agent-server-options.js';
import { buildApp } from './app/build-app.js';
import type { ServerContext } from './app/server-context.js';
import { createSessionKeyChecker } from './app/session-auth.js';
import { BashEventService } from './bash/bash-event-service.js';
import { resolveClientPath } from './files/resolve-client-path.js';

/** A running agent-server. */
export interface AgentServer extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  /** The port it listens on (useful with `port: 0`). */
  readonly port: number;
  /** The options in force, defaults applied. */
  readonly options: ResolvedAgentServerOptions;
  /** The underlying Fastify instance (for `inject` in tests and extra routes). */
  readonly app: FastifyInstance;
  /**
   * Stops accepting connections, ends running commands cleanly and flushes state. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts an OpenHands-compatible agent-server and resolves once it listens. Rejects with a
 * `ZodError` naming a bad option, a `WorkspaceError` (`INVALID_ARGUMENT`) when `workingDir` is
 * not an existing directory, or the listen error (e.g. `EADDRINUSE`).
 *
 * @example
 * ```ts
 * await using server = await createAgentServer({ port: 0, workingDir: '/workspace', sessionApiKeys: ['secret'] });
 * console.log(server.url);
 * ```
 */
export async function createAgentServer(options: AgentServerOptions = {}): Promise<AgentServer> {
  const resolved = resolveAgentServerOptions(options);
  if (!(await stat(resolved.workingDir).catch(() => undefined))?.isDirectory()) {
    throw invalidArgument('workingDir', `must be an existing directory: ${resolved.workingDir}`);
  }
  let lastActivityAt = Date.now();
  const bash = new BashEventService({
    workingDir: resolved.workingDir,
    stateDir: resolved.stateDir,
    retentionSeconds: resolved.bashEventRetentionSeconds,
    maxBytes: resolved.bashEventMaxBytes,
  });
  const context: ServerContext = {
    options: resolved,
    bash,
    authRequired: resolved.sessionApiKeys.length > 0,
    checkSessionKey: createSessionKeyChecker(resolved.sessionApiKeys),
    startedAt: Date.now(),
    touch: () => {
      lastActivityAt = Date.now();
    },
    lastActivityAt: () => lastActivityAt,
    resolvePath: (input, field) =>
      resolveClientPath({
        input,
        field,
        workingDir: resolved.workingDir,
        confine: resolved.confineToWorkingDir,
      }),
  };
  await bash.start();
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(context);
    await app.listen({ host: resolved.host, port: resolved.port });
  } catch (error) {
    await app?.close();
    await bash.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : resolved.port;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  // A wildcard address is reached through loopback.
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await app.close();
      await bash.close();
    })();
    return closing;
  };
  return {
    url: `http://${reachable}:${port}`,
    port,
    options: resolved,
    app,
    close,
    [Symbol.asyncDispose]: close,
  };
}
