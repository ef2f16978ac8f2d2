import type { InitState } from '@agent-workspace/protocol';

/** A deferred-init state of an agent-server: `dormant`, `initializing` or `ready`. */
export type DeferredInitState = InitState;

/** Options of `initState()` of a workspace over an agent-server. */
export interface InitStateOptions {
  /** Aborting rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/** Options of `initialize()` of a workspace over an agent-server. */
export interface InitializeWorkspaceOptions {
  /**
   * Session keys that replace the dormant server's (at most 16, each 1 to 512 characters): it
   * accepts only these from then on, and the workspace uses the first for every later request
   * and socket. Omitted: the server keeps its start-up keys.
   */
  sessionApiKeys?: readonly string[] | undefined;
  /** Aborting rejects with `ABORTED` (the server may have been initialized regardless). */
  signal?: AbortSignal | undefined;
}
