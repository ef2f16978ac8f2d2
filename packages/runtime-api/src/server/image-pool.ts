import type { ContainerSandbox } from '@agent-workspace/docker/engine';
import type { SessionResources } from '../backend/runtime-backend.js';
import type { WarmPoolEntry } from './warm-pool-options.js';
import { warmSettingsDigest } from './warm-sandbox-spec.js';

/** First wait after a failed refill, in milliseconds; doubles with each failure in a row. */
export const WARM_POOL_RETRY_BASE_MS = 1000;
/** Longest wait between two refill attempts after failures, in milliseconds. */
export const WARM_POOL_RETRY_MAX_MS = 60_000;

/** One image's pool as `GET /pool` reports it. */
export interface WarmPoolImageStats {
  image: string;
  /** Sandboxes the pool keeps ready. */
  target: number;
  /** Ready, unclaimed sandboxes. */
  warm: number;
  /** Sandboxes being started (or adopted) and not ready yet. */
  starting: number;
  /** Sandboxes claimed by a `/start` since the server started. */
  claimedTotal: number;
  /** Failed refills since the server started. */
  failures: number;
  /** The last refill failure's message. */
  lastFailure?: string | undefined;
}

/** The state of one image's warm pool (owned by `WarmPool`). */
export interface ImagePool {
  entry: WarmPoolEntry;
  /** `warmSettingsDigest` of the pool: what its sandboxes carry. */
  settings: string;
  /** Runtime ids of ready, unclaimed sandboxes, oldest first. */
  ready: string[];
  /** Runtime ids of sandboxes being started or adopted. */
  starting: Set<string>;
  claimedTotal: number;
  failures: number;
  failuresInARow: number;
  /** `Date.now()` before which no refill is tried (backoff). */
  retryAt: number;
  retryTimer?: NodeJS.Timeout | undefined;
  lastFailure?: string | undefined;
}

/** An empty pool for `entry`. */
export function createImagePool(
  entry: WarmPoolEntry,
  resources: SessionResources,
  sandbox: ContainerSandbox | undefined,
): ImagePool {
  return {
    entry,
    settings: warmSettingsDigest(entry, resources, sandbox),
    ready: [],
    starting: new Set(),
    claimedTotal: 0,
    failures: 0,
    failuresInARow: 0,
    retryAt: 0,
  };
}

/** The numbers `GET /pool` reports of `pool`. */
export function imagePoolStats(pool: ImagePool): WarmPoolImageStats {
  return {
    image: pool.entry.image,
    target: pool.entry.count,
    warm: pool.ready.length,
    starting: pool.starting.size,
    claimedTotal: pool.claimedTotal,
    failures: pool.failures,
    lastFailure: pool.lastFailure,
  };
}

/**
 * Counts a failed refill of `pool` and sets its backoff: {@link WARM_POOL_RETRY_BASE_MS}
 * doubling with each failure in a row, at most {@link WARM_POOL_RETRY_MAX_MS}. Answers the wait.
 */
export function noteRefillFailure(pool: ImagePool, error: unknown): number {
  pool.failures += 1;
  pool.failuresInARow += 1;
  pool.lastFailure = error instanceof Error ? error.message : String(error);
  const retryInMs = Math.min(
    WARM_POOL_RETRY_BASE_MS * 2 ** (pool.failuresInARow - 1),
    WARM_POOL_RETRY_MAX_MS,
  );
  pool.retryAt = Date.now() + retryInMs;
  return retryInMs;
}
