import type {
  ActionWire,
  ObservationWire,
  WorkspaceIdentity,
  WorkspaceMetrics,
} from '@agent-workspace/protocol';
import {
  AGENT_SERVER_ROUTES,
  FILE_WATCH_CAPABILITY,
  PORT_PROXY_CAPABILITY,
  WORKSPACE_IDENTITY_CAPABILITY,
  WORKSPACE_METRICS_CAPABILITY,
  WORKSPACE_METRICS_ROUTE,
} from '@agent-workspace/protocol/constants';
import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { anySignal } from '../internal/any-signal.js';
import type { CheckedFileWatchOptions, FileWatcher } from '../workspace/file-watch.js';
import type { ExposedPort } from '../workspace/port-exposure.js';
import type { AgentServerClient } from './agent-server-client.js';
import { downloadWorkspaceArchive } from './download-workspace-archive.js';
import { loadWireSchemas } from './load-wire-schemas.js';
import type { PortForwarderOptions } from './port-forwarder.js';
import { executeRemoteAction } from './remote-actions.js';
import type { RemoteTransportOptions } from './remote-workspace-options.js';
import { watchRemoteDirectory } from './watch-remote-directory.js';
import type {
  WorkspaceArchiveOptions,
  WorkspaceArchiveResult,
} from './workspace-archive-options.js';

/** What {@link RemoteExtensions} borrows from its `RemoteTransport`. */
export interface RemoteExtensionsContext {
  /** The transport's options. */
  readonly options: RemoteTransportOptions;
  /** The transport's HTTP client. */
  readonly client: AgentServerClient;
  /** Aborted when the transport closes. */
  readonly closing: AbortSignal;
  /** The server's capabilities, read once from `/server_info`. */
  readonly capabilities: () => Promise<readonly string[]>;
  /** Registers work until it settles, so the transport's `close()` waits for it. */
  readonly track: <T>(work: Promise<T>) => Promise<T>;
}

/**
 * The transport side of a `RemoteWorkspace`'s extensions beyond commands and files: workspace
 * identity, metrics, the port proxy, file watching, workspace archives and runtime actions.
 */
export class RemoteExtensions {
  readonly #context: RemoteExtensionsContext;

  constructor(context: RemoteExtensionsContext) {
    this.#context = context;
  }

  /**
   * The server's `GET /api/workspace/identity`, or `undefined` when the server does not list
   * `WORKSPACE_IDENTITY_CAPABILITY` (an OpenHands server).
   */
  async workspaceIdentity(signal?: AbortSignal): Promise<WorkspaceIdentity | undefined> {
    const { client, closing, capabilities } = this.#context;
    const listed = await capabilities();
    if (signal?.aborted) throw abortedError(signal);
    if (!listed.includes(WORKSPACE_IDENTITY_CAPABILITY)) return undefined;
    const { workspaceIdentityFromWire } = await loadWireSchemas();
    return client.json(
      {
        method: 'GET',
        path: AGENT_SERVER_ROUTES.workspaceIdentity,
        signal: anySignal([signal, closing]),
      },
      workspaceIdentityFromWire,
    );
  }

  /**
   * The server's `GET /api/workspace/metrics`.
   *
   * @throws WorkspaceError `NOT_SUPPORTED` when the server does not list
   * `WORKSPACE_METRICS_CAPABILITY` (an OpenHands server).
   */
  async metrics(signal?: AbortSignal): Promise<WorkspaceMetrics> {
    const { client, closing, capabilities } = this.#context;
    const listed = await capabilities();
    if (signal?.aborted) throw abortedError(signal);
    if (!listed.includes(WORKSPACE_METRICS_CAPABILITY)) {
      throw new WorkspaceError({
        code: 'NOT_SUPPORTED',
        message: `the agent-server does not offer ${WORKSPACE_METRICS_ROUTE} (capability ${WORKSPACE_METRICS_CAPABILITY})`,
      });
    }
    const { workspaceMetricsFromWire } = await loadWireSchemas();
    return client.json(
      {
        method: 'GET',
        path: WORKSPACE_METRICS_ROUTE,
        signal: anySignal([signal, closing]),
      },
      workspaceMetricsFromWire,
    );
  }

  /**
   * Forwards a loopback port here to `port` through the server's port proxy (see
   * {@link startPortForwarder}); `NOT_SUPPORTED` unless the server lists
   * `PORT_PROXY_CAPABILITY`.
   */
  async forwardPort(options: PortForwarderOptions, signal?: AbortSignal): Promise<ExposedPort> {
    const listed = await this.#context.capabilities();
    if (signal?.aborted) throw abortedError(signal);
    if (!listed.includes(PORT_PROXY_CAPABILITY)) {
      throw new WorkspaceError({
        code: 'NOT_SUPPORTED',
        message: `the agent-server does not offer its port proxy (capability ${PORT_PROXY_CAPABILITY})`,
      });
    }
    // Loaded here: it brings undici and ws, which file transfers do not need.
    const { startPortForwarder } = await import('./port-forwarder.js');
    return startPortForwarder(options);
  }

  /**
   * Watches the server directory `path` over its file-watch socket (see
   * {@link watchRemoteDirectory}); `NOT_SUPPORTED` when the server does not list
   * `FILE_WATCH_CAPABILITY` (an OpenHands server).
   */
  async watch(path: string, options: CheckedFileWatchOptions): Promise<FileWatcher> {
    const { client, closing, capabilities } = this.#context;
    const { host, apiKey, connectTimeoutMs } = this.#context.options;
    if (!(await capabilities()).includes(FILE_WATCH_CAPABILITY)) {
      throw new WorkspaceError({
        code: 'NOT_SUPPORTED',
        message: `the agent-server at ${host} does not watch files`,
      });
    }
    return watchRemoteDirectory({
      ...options,
      url: client.websocketUrl(AGENT_SERVER_ROUTES.fileWatchSocket),
      path,
      host,
      apiKey,
      connectTimeoutMs,
      closing,
    });
  }

  /** OpenHands' workspace archive of a server directory, into a local file (see {@link downloadWorkspaceArchive}). */
  workspaceArchive(
    sourcePath: string,
    destinationPath: string,
    options: WorkspaceArchiveOptions,
  ): Promise<WorkspaceArchiveResult> {
    return downloadWorkspaceArchive({
      ...options,
      client: this.#context.client,
      sourcePath,
      destinationPath,
      signal: this.#context.closing,
    });
  }

  /** Runs an OpenHands action on the server (see {@link executeRemoteAction}). */
  executeAction(action: ActionWire, signal?: AbortSignal): Promise<ObservationWire> {
    const { client, closing, options, track } = this.#context;
    return track(
      executeRemoteAction({
        client,
        action,
        signal: anySignal([signal, closing]),
        requestTimeoutMs: options.requestTimeoutMs,
      }),
    );
  }
}
