import type { LocalCommandHandle } from '@agent-workspace/core/internal';
import type { BashEventLog } from './bash-event-log.js';

/** Unwritten log bytes at which commands' output stops being read, and where it resumes. */
export const LOG_BACKLOG_HIGH_BYTES = 8 * 1024 * 1024;
export const LOG_BACKLOG_LOW_BYTES = 2 * 1024 * 1024;

/**
 * Stops reading every running command's output while the event log is behind by more than
 * {@link LOG_BACKLOG_HIGH_BYTES}, until it is down to {@link LOG_BACKLOG_LOW_BYTES}: a command
 * printing faster than the disk takes its events then waits on its pipe, instead of the
 * server's memory holding the difference.
 */
export class OutputGate {
  readonly #running: () => Iterable<LocalCommandHandle>;
  #closed = false;

  /** @param running - The handles of the commands running now. */
  constructor(running: () => Iterable<LocalCommandHandle>) {
    this.#running = running;
  }

  /** Pauses a command that starts while the gate is closed. */
  admit(handle: LocalCommandHandle): void {
    if (this.#closed) handle.pauseOutput();
  }

  /** Closes the gate when `log` is too far behind; it opens again once the log caught up. */
  check(log: BashEventLog): void {
    if (this.#closed || log.backlogBytes <= LOG_BACKLOG_HIGH_BYTES) return;
    this.#closed = true;
    for (const handle of this.#running()) handle.pauseOutput();
    log.whenDrained(LOG_BACKLOG_LOW_BYTES, () => {
      this.#closed = false;
      for (const handle of this.#running()) handle.resumeOutput();
    });
  }
}
