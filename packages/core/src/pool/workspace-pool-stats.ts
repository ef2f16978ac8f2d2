import type { WorkspacePoolError } from './workspace-pool-event.js';

/** Percentiles of the last acquire wait times, in milliseconds. */
export interface AcquireWaitStats {
  /** How many waits the figures cover (the last {@link ACQUIRE_WAIT_SAMPLES} at most). */
  samples: number;
  p50: number;
  p95: number;
  max: number;
}

/** What `WorkspacePool.stats()` returns: a snapshot, cheap to take. */
export interface WorkspacePoolStats {
  /** Ready members nobody holds. */
  idle: number;
  /** Members held by a lease (or being health-checked or initialized for one). */
  inUse: number;
  /** Starts in flight. */
  starting: number;
  /** Released members being reset. */
  resetting: number;
  /** Members being closed; they still count toward `max`. */
  closing: number;
  /** `acquire()` calls waiting for a member. */
  waiting: number;
  min: number;
  max: number;
  /** Members started successfully, ever. */
  created: number;
  /** Successful `acquire()` calls. */
  acquired: number;
  /** Members returned to idle after a successful reset. */
  returned: number;
  /** Members closed by the pool or dropped because their holder closed them. */
  discarded: number;
  /** Of `discarded`: members found dead by a health check. */
  dead: number;
  /** Of `discarded`: idle members closed after `idleTtlMs`. */
  expired: number;
  /** Members the `initialize` hook configured (each lent, never reused). */
  initialized: number;
  /** Of `discarded`: members whose `initialize` failed, timed out or was aborted. */
  initializeFailed: number;
  /** Starts that failed. */
  failedStarts: number;
  /** The last failure (start, reset, close or health check in the background; an initialize), if any. */
  lastError: WorkspacePoolError | undefined;
  /** Wait times of recent acquires; `undefined` before the first. */
  acquireWaitMs: AcquireWaitStats | undefined;
  /** True once `close()` was called. */
  closed: boolean;
}

/** How many acquire wait times {@link AcquireWaitRecorder} keeps. */
export const ACQUIRE_WAIT_SAMPLES = 1024;

/** A ring of the last {@link ACQUIRE_WAIT_SAMPLES} acquire wait times. */
export class AcquireWaitRecorder {
  readonly #samples: number[] = [];
  #next = 0;

  /** Records one wait. */
  record(ms: number): void {
    if (this.#samples.length < ACQUIRE_WAIT_SAMPLES) this.#samples.push(ms);
    else this.#samples[this.#next] = ms;
    this.#next = (this.#next + 1) % ACQUIRE_WAIT_SAMPLES;
  }

  /** Percentiles of the recorded waits (nearest rank). */
  summary(): AcquireWaitStats | undefined {
    if (this.#samples.length === 0) return undefined;
    const sorted = [...this.#samples].sort((a, b) => a - b);
    const rank = (p: number) =>
      sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
    return {
      samples: sorted.length,
      p50: rank(0.5),
      p95: rank(0.95),
      max: sorted[sorted.length - 1]!,
    };
  }
}
