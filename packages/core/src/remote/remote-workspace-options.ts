import { positiveOption } from '../errors/positive-option.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../internal/output/default-max-output-bytes.js';
import type { WorkspaceCapabilities } from '../workspace/workspace-capabilities.js';
import { agentServerBaseUrl } from './agent-server-base-url.js';

/** What every workspace over an agent-server supports beyond the core contract. */
export const AGENT_SERVER_CAPABILITIES: WorkspaceCapabilities = Object.freeze({
  directoryTransfer: true,
  runtimeActions: true,
  gitHistory: true,
});

/** Options of `RemoteWorkspace`. */
export interface RemoteWorkspaceOptions {
  /** Base URL of the agent-server, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  host: string;
  /** Absolute directory on the server that relative paths and the default cwd resolve against. */
  workingDir: string;
  /**
   * Session API key: sent in the session key header and as the websocket's first frame (and as
   * the `X-Init-API-Key` of `initialize()`).
   */
  apiKey?: string | undefined;
  /** Longest wait for response headers and between body chunks. Default 60 000 ms. */
  requestTimeoutMs?: number | undefined;
  /** Longest wait for a TCP / websocket connection. Default 10 000 ms. */
  connectTimeoutMs?: number | undefined;
  /** Cap on pooled keep-alive HTTP connections. Default 32. */
  maxConnections?: number | undefined;
  /**
   * How long a running command may wait for a dropped connection to come back before it
   * fails with `CONNECTION_ERROR`. Default 30 000 ms.
   */
  reconnectTimeoutMs?: number | undefined;
  /** Cap on captured bytes per stream; the tail is kept. Default 10 MiB. */
  maxOutputBytes?: number | undefined;
}

/** The validated options of a `RemoteWorkspace`, as its transport takes them. */
export interface RemoteTransportOptions {
  /** Base URL of the agent-server, as `agentServerBaseUrl` normalised it. */
  host: string;
  /** The workspace's `workingDir`. */
  workingDir: string;
  apiKey: string | undefined;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  reconnectTimeoutMs: number;
  maxConnections: number;
  maxOutputBytes: number;
}

/**
 * Checks {@link RemoteWorkspaceOptions} (an `INVALID_ARGUMENT` names the field) and applies the
 * defaults; `workingDir` is the workspace's, already resolved.
 */
export function resolveRemoteWorkspaceOptions(
  options: RemoteWorkspaceOptions,
  workingDir: string,
): RemoteTransportOptions {
  return {
    host: agentServerBaseUrl(options.host).host,
    workingDir,
    apiKey: options.apiKey,
    requestTimeoutMs: positiveOption(options.requestTimeoutMs, 60_000, 'requestTimeoutMs'),
    connectTimeoutMs: positiveOption(options.connectTimeoutMs, 10_000, 'connectTimeoutMs'),
    reconnectTimeoutMs: positiveOption(options.reconnectTimeoutMs, 30_000, 'reconnectTimeoutMs'),
    maxConnections: positiveOption(options.maxConnections, 32, 'maxConnections'),
    maxOutputBytes: positiveOption(
      options.maxOutputBytes,
      DEFAULT_MAX_OUTPUT_BYTES,
      'maxOutputBytes',
    ),
  };
}
