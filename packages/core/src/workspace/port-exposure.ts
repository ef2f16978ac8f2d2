import type { Workspace } from './workspace.js';

/** A sandbox port reachable from this process; closed with its workspace. */
export interface ExposedPort extends AsyncDisposable {
  /** The port inside the sandbox. */
  readonly port: number;
  /** Where to reach it from here: `http://127.0.0.1:<local port>` (use `ws:` for websockets). */
  readonly url: string;
  /** Stops forwarding; open connections are cut. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link PortExposure.exposePort}. */
export interface ExposePortOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Reaching a server an agent started inside the sandbox (a dev server, a preview) from this
 * process: `exposePort(port)` gives a `http://127.0.0.1:<local port>` URL (and `ws:` for
 * websockets) that forwards to the agent-server's port proxy with the session key, so clients
 * here need no key and nothing is published beyond loopback. Remote and sandbox workspaces
 * declare the `portExposure` capability (found with {@link portExposureOf}).
 */
export interface PortExposure {
  /**
   * Starts forwarding `port` (1–65535) of the sandbox; closed by its `close()` or with the
   * workspace. A port nothing listens on answers 502 per request.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `port`; `NOT_SUPPORTED` when the
   * agent-server does not announce `PORT_PROXY_CAPABILITY` (an OpenHands server);
   * `WORKSPACE_CLOSED`; `ABORTED`.
   */
  exposePort(port: number, options?: ExposePortOptions): Promise<ExposedPort>;
}

/**
 * `candidate` as {@link PortExposure} when it is a workspace that declares the `portExposure`
 * capability (see `WorkspaceCapabilities`), else `undefined`.
 */
export function portExposureOf(candidate: unknown): PortExposure | undefined {
  const workspace = candidate as Workspace | null | undefined;
  return workspace?.capabilities?.portExposure === true
    ? (workspace as Workspace & PortExposure)
    : undefined;
}
