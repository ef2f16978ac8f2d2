import type { WorkspaceError } from '@agent-workspace/core';
import type { ConversationExecutionStatus } from '@agent-workspace/protocol';

/** Longest wait between REST checks of a run's status when the socket says nothing. */
export const REMOTE_RUN_POLL_MAX_MS = 1_000;

/** First wait between REST checks while the events socket is down (doubling to the maximum). */
const REMOTE_RUN_POLL_MIN_MS = 50;

/** Options of {@link RemoteRunStatus.waitUntilNotRunning}. */
export interface WaitUntilNotRunningOptions {
  /** Reads the status over REST. */
  fetchStatus: () => Promise<ConversationExecutionStatus>;
  /** Throws once the conversation is closed. */
  assertOpen: () => void;
  /**
   * {@link RemoteRunStatus.mark} taken before the run was asked for: a status other than
   * `running` the socket reported since then is checked over REST at once.
   */
  since: number;
  /** Whether the events socket is connected now (it reports every status change). */
  socketConnected: () => boolean;
}

/**
 * The execution status of a remote conversation as last reported, by the events socket
 * ({@link RemoteRunStatus.report}) or over REST, and the wait for a run to end: each status
 * other than `running` the socket reports (counted from {@link RemoteRunStatus.mark}, so one
 * that came before the wait began is not missed) is confirmed over REST. While the socket is
 * connected that is the only wake-up but a check every {@link REMOTE_RUN_POLL_MAX_MS}; while it
 * is down, REST is polled with a backoff from 50 ms to that.
 */
export class RemoteRunStatus {
  #status: ConversationExecutionStatus;
  /** Called on every status the socket reports, on a fatal socket error and on close. */
  readonly #listeners = new Set<() => void>();
  /** Statuses other than `running` the socket reported so far. */
  #settledReports = 0;
  #fatal: WorkspaceError | undefined;
  #closed = false;

  constructor(initial: ConversationExecutionStatus) {
    this.#status = initial;
  }

  /** The status last reported. */
  get current(): ConversationExecutionStatus {
    return this.#status;
  }

  /** A mark for {@link WaitUntilNotRunningOptions.since}: take it before starting the run. */
  mark(): number {
    return this.#settledReports;
  }

  /** A status the events socket reported; wakes a waiting run. */
  report(status: ConversationExecutionStatus): void {
    this.#status = status;
    if (status !== 'running') this.#settledReports += 1;
    this.#notify();
  }

  /** The events socket gave up: a waiting run rejects with `error`. */
  fail(error: WorkspaceError): void {
    this.#fatal = error;
    this.#notify();
  }

  /** The conversation closed: a waiting run wakes and fails its `assertOpen`. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  /** Resolves to the first status over REST that is not `running` (see the class). */
  async waitUntilNotRunning({
    fetchStatus,
    assertOpen,
    since,
    socketConnected,
  }: WaitUntilNotRunningOptions): Promise<ConversationExecutionStatus> {
    let seen = since;
    let delayMs = REMOTE_RUN_POLL_MIN_MS;
    for (;;) {
      assertOpen();
      if (this.#fatal) throw this.#fatal;
      if (this.#settledReports === seen) {
        const connected = socketConnected();
        await this.#nextSettledReport(seen, connected ? REMOTE_RUN_POLL_MAX_MS : delayMs);
        delayMs = connected
          ? REMOTE_RUN_POLL_MIN_MS
          : Math.min(delayMs * 2, REMOTE_RUN_POLL_MAX_MS);
        assertOpen();
        if (this.#fatal) throw this.#fatal;
      }
      seen = this.#settledReports;
      // The server marks a conversation `running` before it answers POST …/run, so a REST
      // status other than `running` after it means the run is over.
      const status = await fetchStatus();
      this.#status = status;
      if (status !== 'running') return status;
    }
  }

  /** Resolves once more than `seen` settled statuses were reported, or after `ms`. */
  #nextSettledReport(seen: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve();
      };
      const listener = (): void => {
        if (this.#settledReports !== seen || this.#closed || this.#fatal) done();
      };
      const timer = setTimeout(done, ms);
      this.#listeners.add(listener);
    });
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
