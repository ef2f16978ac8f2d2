import type { WorkspaceErrorCode } from '../errors/workspace-error.js';

/** Why a pool closed one of its members. */
export type PoolDiscardReason =
  /** Released without a `reset`, with `discard: true`, or after an `initialize` (never reused). */
  | 'released'
  /** The `initialize` hook threw, timed out or was aborted; its acquire rejected. */
  | 'initialize-failed'
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

/**
 * The last failure a pool met, for `stats().lastError`: in the background, or an `initialize`
 * (whose acquire also rejected with it).
 */
export interface WorkspacePoolError {
  /** The `WorkspaceError` code (`PROVISIONING_ERROR` for anything else). */
  code: WorkspaceErrorCode;
  message: string;
  /** What failed: a start, a reset, a close, a health check or an `initialize`. */
  during: 'start' | 'reset' | 'close' | 'health-check' | 'initialize';
  /** When, as an ISO 8601 time. */
  at: string;
}

/** What {@link WorkspacePoolOptions.onEvent} is called with. */
export type WorkspacePoolEvent =
  | { type: 'started'; startMs: number }
  | { type: 'start-failed'; error: WorkspacePoolError; retryInMs: number | undefined }
  | { type: 'initialized'; initializeMs: number }
  | { type: 'acquired'; waitedMs: number }
  | { type: 'returned' }
  | { type: 'discarded'; reason: PoolDiscardReason }
  | { type: 'closed' };
