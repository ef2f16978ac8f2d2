import type { WorkspaceError } from '@agent-workspace/core';
import type { ConversationExecutionStatus } from '@agent-workspace/protocol';

/** Longest wait between REST checks of a run's status when the socket says nothing. */
export const REMOTE_RUN_POLL_MAX_MS = 1_000;

/** First wait between REST checks while the events socket is down (doubling to the maximum). */
const REMOTE_RUN_POLL_MIN_MS = 50;

/** Where the reports stood when a run was asked for; see {@link RemoteRunStatus.mark}. */
export interface RunMark {
  /** Reports of any status so far. */
  readonly reports: number;
  /** Reports of a status other than `running` so far. */
  readonly settled: number;
}

/** Options of {@link RemoteRunStatus.waitUntilNotRunning}. */
export interface WaitUntilNotRunningOptions {
  /** Reads the status over REST. */
  fetchStatus: () => Promise<ConversationExecutionStatus>;
  /** Throws once the conversation is closed. */
  assertOpen: () => void;
  /**
   * {@link RemoteRunStatus.mark} taken before the run was asked for: a status the socket reported
   * since then counts (one that came before the wait began is not missed).
   */
  since: RunMark;
  /** Whether the events socket is connected now (it reports every status change). */
  socketConnected: () => boolean;
}

/** A status report of the events socket. */
export interface StatusReport {
  /** The report is a `full_state` snapshot (the server sends one at connect and after a run). */
  snapshot?: boolean | undefined;
}

/**
 * The execution status of a remote conversation as last reported, by the events socket
 * ({@link RemoteRunStatus.report}) or over REST, and the wait for a run to end.
 *
 * A run's end is read from the socket alone when the socket told it all over one connection:
 * a `running` report after the run was asked for, then a `full_state` snapshot of another status
 * (what the server sends once the run is over, after every event of the run). Otherwise each
 * status other than `running` the socket reports (counted from {@link RemoteRunStatus.mark}) is
 * confirmed over REST. While the socket is connected that is the only wake-up but a check every
 * {@link REMOTE_RUN_POLL_MAX_MS}; while it is down, REST is polled with a backoff from 50 ms to
 * that.
 */
export class RemoteRunStatus {
  #status: ConversationExecutionStatus;
  /** Called on every status the socket reports, on a fatal socket error and on close. */
  readonly #listeners = new Set<() => void>();
  /** Statuses the socket reported so far. */
  #reports = 0;
  /** Statuses other than `running` the socket reported so far. */
  #settledReports = 0;
  /** Reports before this one came over an earlier connection of the socket. */
  #connectionStart = 0;
  /** The index of the last `running` report on this connection, -1 when none. */
  #lastRunning = -1;
  /** The first snapshot of another status after {@link #lastRunning}: the run is over. */
  #runOver: ConversationExecutionStatus | undefined;
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
  mark(): RunMark {
    return { reports: this.#reports, settled: this.#settledReports };
  }

  /** A status the events socket reported; wakes a waiting run. */
  report(status: ConversationExecutionStatus, { snapshot = false }: StatusReport = {}): void {
    this.#status = status;
    if (status === 'running') {
      this.#lastRunning = this.#reports;
      this.#runOver = undefined;
    } else {
      this.#settledReports += 1;
      if (snapshot && this.#lastRunning >= 0) this.#runOver ??= status;
    }
    this.#reports += 1;
    this.#notify();
  }

  /** The socket connected again: what it reported before may have missed frames. */
  reconnected(): void {
    this.#connectionStart = this.#reports;
    this.#lastRunning = -1;
    this.#runOver = undefined;
  }

  /**
   * The status a run asked for at `since` ended with, when the socket told it over one
   * connection (see the class): every event of that run was delivered before the snapshot.
   */
  endedOverSocket(since: RunMark): ConversationExecutionStatus | undefined {
    return this.#runningSince(since) ? this.#runOver : undefined;
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

  /** Resolves to the status the run ended with (see the class). */
  async waitUntilNotRunning({
    fetchStatus,
    assertOpen,
    since,
    socketConnected,
  }: WaitUntilNotRunningOptions): Promise<ConversationExecutionStatus> {
    let seen = since.settled;
    let delayMs = REMOTE_RUN_POLL_MIN_MS;
    for (;;) {
      assertOpen();
      if (this.#fatal) throw this.#fatal;
      const ended = this.endedOverSocket(since);
      if (ended !== undefined) {
        this.#status = ended;
        return ended;
      }
      const pollMs = socketConnected() ? REMOTE_RUN_POLL_MAX_MS : delayMs;
      if (this.#runningSince(since)) {
        // The socket told this run's start: its snapshot will tell the end. REST only if
        // nothing comes within the poll interval.
        const reports = this.#reports;
        if (await this.#until(() => this.#reports !== reports, pollMs)) continue;
      } else if (this.#settledReports === seen) {
        await this.#until(() => this.#settledReports !== seen, pollMs);
      }
      delayMs = socketConnected()
        ? REMOTE_RUN_POLL_MIN_MS
        : Math.min(delayMs * 2, REMOTE_RUN_POLL_MAX_MS);
      assertOpen();
      if (this.#fatal) throw this.#fatal;
      if (this.endedOverSocket(since) !== undefined) continue;
      seen = this.#settledReports;
      // The server marks a conversation `running` before it answers POST …/run, so a REST
      // status other than `running` after it means the run is over.
      const status = await fetchStatus();
      this.#status = status;
      if (status !== 'running') return status;
    }
  }

  /** The socket reported `running` since `since`, over the connection it is on since then. */
  #runningSince(since: RunMark): boolean {
    return this.#connectionStart <= since.reports && this.#lastRunning >= since.reports;
  }

  /**
   * Resolves true once `condition` holds (checked on each report), or on a fatal error or close;
   * false after `ms`.
   */
  #until(condition: () => boolean, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (value: boolean): void => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve(value);
      };
      const listener = (): void => {
        if (condition() || this.#closed || this.#fatal) done(true);
      };
      const timer = setTimeout(() => done(false), ms);
      this.#listeners.add(listener);
    });
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
