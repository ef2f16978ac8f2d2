/** What is known of one command's followers. */
interface Holds {
  count: number;
  detached: boolean;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Counts who follows each running command (an `execute_bash_command` request waiting for it, an
 * exec connection that started or attached to it). When the last follower of a command that was
 * not started detached goes away, `onOrphaned` is called after `graceMs` unless someone attached
 * meanwhile; a detached command runs on without followers.
 */
export class CommandHolds {
  readonly #graceMs: number;
  readonly #onOrphaned: (commandId: string) => void;
  readonly #holds = new Map<string, Holds>();

  constructor(graceMs: number, onOrphaned: (commandId: string) => void) {
    this.#graceMs = graceMs;
    this.#onOrphaned = onOrphaned;
  }

  /** Registers a started command; unless detached, its starter holds it (the release returned). */
  started(commandId: string, detached: boolean): (() => void) | undefined {
    this.#holds.set(commandId, { count: 0, detached, timer: undefined });
    return detached ? undefined : this.hold(commandId);
  }

  /** Adds a follower of a running command; returns its release (idempotent). */
  hold(commandId: string): () => void {
    const holds = this.#holds.get(commandId);
    if (!holds) return () => {};
    holds.count++;
    clearTimeout(holds.timer);
    holds.timer = undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      holds.count--;
      if (holds.count > 0 || holds.detached || this.#holds.get(commandId) !== holds) return;
      holds.timer = setTimeout(() => {
        holds.timer = undefined;
        if (holds.count === 0 && this.#holds.get(commandId) === holds) this.#onOrphaned(commandId);
      }, this.#graceMs);
      holds.timer.unref();
    };
  }

  /** Forgets a command that ended. */
  finished(commandId: string): void {
    clearTimeout(this.#holds.get(commandId)?.timer);
    this.#holds.delete(commandId);
  }
}
