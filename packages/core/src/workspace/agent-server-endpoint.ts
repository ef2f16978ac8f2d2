import type { Workspace } from './workspace.js';

/** How to reach the agent-server a workspace talks to. */
export interface AgentServerEndpoint {
  /** Base URL of the agent-server, without a trailing slash (a path prefix is kept). */
  readonly host: string;
  /**
   * Session API key the agent-server accepts, if it needs one. Non-enumerable on the objects
   * core returns, so logging or `JSON.stringify` of the endpoint does not print it.
   */
  readonly apiKey?: string | undefined;
}

/** Options of {@link Workspace.agentServerEndpoint}. */
export interface AgentServerEndpointOptions {
  /** Aborting stops waiting (e.g. for a sandbox to start) with an `ABORTED` error. */
  signal?: AbortSignal | undefined;
}

/** A workspace that talks to an agent-server: it has {@link Workspace.agentServerEndpoint}. */
export type AgentServerWorkspace = Workspace & Required<Pick<Workspace, 'agentServerEndpoint'>>;

/**
 * True when `workspace` talks to an agent-server (remote and sandboxed workspaces, or any
 * custom workspace that implements `agentServerEndpoint`). Decide by this capability, never by
 * class names.
 */
export function hasAgentServer(workspace: Workspace): workspace is AgentServerWorkspace {
  return typeof workspace.agentServerEndpoint === 'function';
}

/**
 * An {@link AgentServerEndpoint} whose `apiKey` is a non-enumerable, read-only property: it is
 * readable, but not printed by `console.log`/`util.inspect` nor serialised by `JSON.stringify`.
 */
export function agentServerEndpoint(host: string, apiKey?: string): AgentServerEndpoint {
  const endpoint: { host: string; apiKey?: string } = { host };
  if (apiKey !== undefined) {
    Object.defineProperty(endpoint, 'apiKey', { value: apiKey, enumerable: false });
  }
  return Object.freeze(endpoint);
}
