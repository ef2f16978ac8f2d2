import { asPoolError } from './pool-errors.js';
import type { WorkspacePoolError, WorkspacePoolEvent } from './workspace-pool-event.js';
import { AcquireWaitRecorder } from './workspace-pool-stats.js';

/** What a pool counts and remembers for `stats()`, and how it tells `onEvent`. */
export class PoolRecord {
  /** The totals of `stats()`. */
  readonly counters = {
    ...{ created: 0, acquired: 0, returned: 0, discarded: 0 },
    ...{ dead: 0, expired: 0, initialized: 0, initializeFailed: 0, failedStarts: 0 },
  };
  /** Recent acquire wait times. */
  readonly waits = new AcquireWaitRecorder();
  /** The last background failure. */
  lastError: WorkspacePoolError | undefined;
  readonly #onEvent: ((event: WorkspacePoolEvent) => void) | undefined;

  constructor(onEvent: ((event: WorkspacePoolEvent) => void) | undefined) {
    this.#onEvent = onEvent;
  }

  /** Remembers `error` as the last one; returns how `stats()` shows it. */
  error(error: unknown, during: WorkspacePoolError['during']): WorkspacePoolError {
    const { code, message } = asPoolError(error, `${during} failed`);
    this.lastError = { code, message, during, at: new Date().toISOString() };
    return this.lastError;
  }

  /** Tells the listener, if any; what it throws is its own. */
  emit(event: WorkspacePoolEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // Ignored: a listener cannot break the pool.
    }
  }
}
