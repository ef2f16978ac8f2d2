import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  BubblewrapSandbox,
  type CommandSandbox,
  type EgressRefusal,
  invalidArgument,
} from '@agent-workspace/core';
import { childEnvironment, PathWalker } from '@agent-workspace/core/internal';
import { MemoryMonitor, PluginHost } from '@agent-workspace/runtime-plugins';
import type { FastifyInstance } from 'fastify';
import { ServerWorkspace } from './actions/server-workspace.js';
import {
  type AgentServerOptions,
  type ResolvedAgentServerOptions,
  resolveAgentServerOptions,
} from './agent-server-options.js';
import { buildApp, createAgentServerApp } from './app/build-app.js';
import { DeferredInit } from './app/deferred-init.js';
import type { ServerContext } from './app/server-context.js';
import { createSessionAuth } from './app/session-auth.js';
import { BashEventService } from './bash/bash-event-service.js';
import { ConversationService } from './conversations/conversation-service.js';
import { InstanceRegistry, type SweepReport } from './runtime/instance-registry.js';

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
  /** What the start-up sweep cleaned up after servers that died without closing. */
  readonly sweep: SweepReport;
  /**
   * Stops accepting connections, aborts uploads (removing their temporary files), ends running
   * commands and the processes they left, flushes state. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts an OpenHands-compatible agent-server and resolves once it listens. First it sweeps what
 * servers killed without closing left behind (their processes and temporary upload files; see
 * `InstanceRegistry`). Rejects with a `ZodError` naming a bad option, a `WorkspaceError`
 * (`INVALID_ARGUMENT`) when `workingDir` is not an existing directory or `runtimeDir` is not
 * private, `NOT_SUPPORTED` / `SPAWN_ERROR` when the sandbox cannot start, or the listen error
 * (e.g. `EADDRINUSE`).
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
  const { registry: runtime, sweep } = await InstanceRegistry.open(resolved.runtimeDir);
  const cleanups: (() => Promise<unknown> | unknown)[] = [() => runtime.close()];
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const paths = PathWalker.open({
      workingDir: resolved.workingDir,
      confine: resolved.confineToWorkingDir,
    });
    cleanups.push(() => paths.close());
    // The plugins' files (kernel sockets, the browser's profile) must be inside the sandbox.
    const pluginsDir =
      resolved.plugins.length === 0
        ? undefined
        : resolved.stateDir !== undefined
          ? path.join(resolved.stateDir, 'plugins')
          : path.join(runtime.privateDirectory(), 'plugins');
    if (pluginsDir !== undefined) await mkdir(pluginsDir, { recursive: true, mode: 0o700 });
    // Refusals are logged once the app (and its logger) exists.
    let onEgressRefused = (_refusal: EgressRefusal): void => {};
    let sandbox: CommandSandbox | undefined;
    if (resolved.sandbox !== false) {
      const { allowHosts, network, readOnlyPaths, writablePaths } = resolved.sandbox;
      sandbox = await BubblewrapSandbox.start({
        workingDir: resolved.workingDir,
        network: allowHosts === undefined ? network : { allowHosts },
        readOnlyPaths,
        writablePaths: pluginsDir === undefined ? writablePaths : [...writablePaths, pluginsDir],
        onEgressRefused: (refusal) => onEgressRefused(refusal),
      });
      cleanups.push(() => sandbox?.close());
    }
    const memory = new MemoryMonitor({ limitBytes: resolved.processTreeMemoryLimitBytes });
    cleanups.push(() => memory.close());
    const bash = new BashEventService({
      watchProcessTree: (watch) => memory.watch(watch),
      paths,
      sandbox,
      environment: runtime.environment,
      stateDir: resolved.stateDir,
      retentionSeconds: resolved.bashEventRetentionSeconds,
      maxBytes: resolved.bashEventMaxBytes,
      maxCommandBytes: resolved.maxCommandHistoryBytes,
      maxConcurrentCommands: resolved.maxConcurrentCommands,
      orphanGraceMs: resolved.orphanedCommandGraceSeconds * 1000,
    });
    await bash.start();
    cleanups.push(() => bash.close());
    const shutdown = new AbortController();
    const inFlight = new Set<Promise<unknown>>();
    let lastActivityAt = Date.now();
    const app = createAgentServerApp(resolved);
    const conversations = new ConversationService({
      paths,
      stateDir: resolved.stateDir,
      log: app.log,
      actions: () => context.plugins ?? null,
      // The server's own workspace: its tools are confined, sandboxed, scrubbed, bounded and
      // journaled as every other path of the server.
      workspace: ({ workingDir }) => new ServerWorkspace(context, { workingDir }),
      history: {
        maxEventBytes: resolved.conversationMaxEventBytes,
        maxMemoryBytes: resolved.conversationMaxMemoryBytes,
        maxDiskBytes: resolved.conversationMaxDiskBytes,
      },
      maxLoadedConversations: resolved.maxLoadedConversations,
    });
    // Closed after the app (cleanups run in reverse), before the services it acts through.
    cleanups.push(() => conversations.close());
    const context: ServerContext = {
      options: resolved,
      bash,
      paths,
      sandbox,
      runtime,
      memory,
      plugins: undefined,
      conversations,
      shutdownSignal: shutdown.signal,
      track: (work) => {
        const settled = work.then(
          () => {},
          () => {},
        );
        inFlight.add(settled);
        void settled.then(() => inFlight.delete(settled));
        return work;
      },
      auth: createSessionAuth(resolved.sessionApiKeys, { hashes: resolved.sessionApiKeyHashes }),
      init: resolved.deferInit ? new DeferredInit() : undefined,
      startedAt: Date.now(),
      touch: () => {
        lastActivityAt = Date.now();
      },
      lastActivityAt: () => lastActivityAt,
    };
    await buildApp(app, context);
    const egressLog = app.log.child({ component: 'egress' });
    onEgressRefused = (refusal) =>
      egressLog.warn({ ...refusal }, `egress to ${refusal.host}:${refusal.port} refused`);
    cleanups.push(async () => {
      shutdown.abort();
      await Promise.all(inFlight);
      await app.close();
    });
    if (resolved.plugins.length > 0) {
      // Started in the background: the server answers at once, actions wait for their plugin.
      context.plugins = PluginHost.start({
        plugins: resolved.plugins,
        workingDir: resolved.workingDir,
        stateDir: pluginsDir,
        sandbox,
        // Scrubbed like every child's; marked for the sweep; through the egress proxy.
        environment: childEnvironment({
          extra: { ...runtime.environment, ...sandbox?.proxyEnvironment('plugin') },
        }),
        logger: app.log.child({ component: 'plugins' }),
        startTimeoutMs: resolved.pluginStartTimeoutSeconds * 1000,
        actionTimeoutMs: resolved.actionTimeoutSeconds * 1000,
        memory,
      });
      const plugins = context.plugins;
      cleanups.push(() => plugins.close());
    }
    await app.listen({ host: resolved.host, port: resolved.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : resolved.port;
    const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
    // A wildcard address is reached through loopback.
    const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= cleanUp();
      return closing;
    };
    return {
      url: `http://${reachable}:${port}`,
      port,
      options: resolved,
      app,
      sweep,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
