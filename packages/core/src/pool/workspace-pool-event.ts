import type { WorkspaceErrorCode } from '../errors/workspace-error.js';

/** Why a pool closed one of its members. */
export type PoolDiscardReason =
  /** Released without a `reset` (or with `discard: true`). */
  | 'released'
  /** The `reset` hook threw or timed out. */
  | 'reset-failed'
  /** The health check failed (the sandbox died, its agent-server stopped answering). */
  | 'dead'
  /** Idle beyond `min` for longer than `idleTtlMs`. */
  | 'expired'
  /** Closed by its holder; the pool only drops it. */
  | 'closed-by-holder'
  /** The pool is closing. */
  | 'pool-closed';

/** The last failure a pool met in the background, for `stats().lastError`. */
export interface WorkspacePoolError {
  /** The `WorkspaceError` code (`PROVISIONING_ERROR` for anything else). */
  code: WorkspaceErrorCode;
  message: string;
  /** What failed: a start, a reset, a close or a health check. */
  during: 'start' | 'reset' | 'close' | 'health-check';
  /** When, as an ISO 8601 time. */
  at: string;
}

/** What {@link WorkspacePoolOptions.onEvent} is called with. */
export type WorkspacePoolEvent =
  | { type: 'started'; startMs: number }
  | { type: 'start-failed'; error: WorkspacePoolError; retryInMs: number | undefined }
  | { type: 'acquired'; waitedMs: number }
  | { type: 'returned' }
  | { type: 'discarded'; reason: PoolDiscardReason }
  | { type: 'closed' };
