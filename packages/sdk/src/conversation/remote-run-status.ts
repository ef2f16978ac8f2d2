import type { WorkspaceError } from '@agent-workspace/core';
import type { ConversationExecutionStatus } from '@agent-workspace/protocol';

/** Longest wait between REST checks of a run's status when the socket says nothing. */
export const REMOTE_RUN_POLL_MAX_MS = 1_000;

/** Options of {@link RemoteRunStatus.waitUntilNotRunning}. */
export interface WaitUntilNotRunningOptions {
  /** Reads the status over REST (`GET /api/conversations/{id}`). */
  fetchStatus: () => Promise<ConversationExecutionStatus>;
  /** Throws once the conversation is closed. */
  assertOpen: () => void;
}

/**
 * The execution status of a remote conversation as last reported, by the events socket
 * ({@link RemoteRunStatus.report}) or over REST, and the wait for a run to end: woken by the
 * socket's reports, confirmed over REST, polled with a backoff up to
 * {@link REMOTE_RUN_POLL_MAX_MS} when the socket says nothing.
 */
export class RemoteRunStatus {
  #status: ConversationExecutionStatus;
  /** Called on every status the socket reports, on a fatal socket error and on close. */
  readonly #listeners = new Set<() => void>();
  #fatal: WorkspaceError | undefined;
  #closed = false;

  constructor(initial: ConversationExecutionStatus) {
    this.#status = initial;
  }

  /** The status last reported. */
  get current(): ConversationExecutionStatus {
    return this.#status;
  }

  /** A status the events socket reported; wakes a waiting run. */
  report(status: ConversationExecutionStatus): void {
    this.#status = status;
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

  /** Resolves to the first status over REST that is not `running`. */
  async waitUntilNotRunning({
    fetchStatus,
    assertOpen,
  }: WaitUntilNotRunningOptions): Promise<ConversationExecutionStatus> {
    let delayMs = 50;
    for (;;) {
      assertOpen();
      if (this.#fatal) throw this.#fatal;
      // The server marks a conversation `running` before it answers POST …/run, so a REST
      // status other than `running` after it means the run is over.
      const status = await fetchStatus();
      this.#status = status;
      if (status !== 'running') return status;
      await this.#nextStatusHint(delayMs);
      delayMs = Math.min(delayMs * 2, REMOTE_RUN_POLL_MAX_MS);
    }
  }

  /** Resolves on the next status from the socket that is not `running`, or after `ms`. */
  #nextStatusHint(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve();
      };
      const listener = (): void => {
        if (this.#status !== 'running' || this.#closed || this.#fatal) done();
      };
      const timer = setTimeout(done, ms);
      this.#listeners.add(listener);
    });
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
