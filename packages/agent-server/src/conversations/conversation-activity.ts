import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../app/http-error.js';
import { fullState } from './conversation-info.js';
import type { ConversationWatcher, HeldConversation } from './conversation-record.js';
import { ConversationWatchers } from './conversation-watchers.js';

/** Options of {@link ConversationActivity}. */
export interface ConversationActivityOptions {
  log: FastifyBaseLogger;
  /** Called when a run ends or a watcher leaves: the conversation may now be unloaded. */
  settled: () => void;
}

/**
 * What goes on in the loaded conversations: their background runs (paused, interrupted) and
 * the watchers (events sockets) following them, told a `full_state` snapshot after each run.
 * A run or a watcher keeps its conversation loaded.
 */
export class ConversationActivity {
  readonly #options: ConversationActivityOptions;
  readonly #watchers = new ConversationWatchers();
  #closed = false;

  constructor(options: ConversationActivityOptions) {
    this.#options = options;
  }

  /**
   * Starts a run of `held` in the background. A run whose status has settled (paused, finished,
   * ...) but which is still writing its events is waited for first: a run asked for as soon as
   * the last one said it ended is not refused.
   * @throws HttpError 409 while a run is going on.
   */
  async startRun(held: HeldConversation): Promise<void> {
    await this.#windingDown(held);
    if (held.run !== undefined) {
      throw new HttpError(409, 'Conversation already running. Wait for completion or pause first.');
    }
    this.#launch(held);
  }

  /** Starts a run of `held` unless one is going on (which then takes what was added). */
  async startRunUnlessRunning(held: HeldConversation): Promise<void> {
    await this.#windingDown(held);
    if (held.run === undefined) this.#launch(held);
  }

  /** Resolves once `held`'s run, if its status has already settled, has ended. */
  async #windingDown(held: HeldConversation): Promise<void> {
    if (held.run !== undefined && held.conversation.state.executionStatus !== 'running') {
      await held.run;
    }
  }

  #launch(held: HeldConversation): void {
    held.run = held.conversation
      .run()
      .then(
        () => undefined,
        (error: unknown) => {
          this.#options.log.error(
            { err: error, conversationId: held.record.meta.id },
            'run failed',
          );
        },
      )
      .finally(() => {
        held.run = undefined;
        if (this.#closed) return;
        this.#watchers.notify(held.record.meta.id, fullState(held));
        this.#options.settled();
      });
  }

  /** Asks the run of `held`, if any, to pause after its step in flight; returns at once. */
  pause(held: HeldConversation | undefined): void {
    void held?.conversation.pause().catch(() => undefined);
  }

  /** Interrupts the run of `held`, if any, and waits until it has stopped. */
  async interrupt(held: HeldConversation | undefined): Promise<void> {
    if (held === undefined) return;
    await held.conversation.interrupt();
    await held.run;
  }

  /**
   * Follows `held`'s new events, its streamed deltas and post-run snapshots; returns the
   * unsubscribe.
   */
  watch(held: HeldConversation, watcher: ConversationWatcher): () => void {
    const remove = this.#watchers.add(held.record.meta.id, watcher);
    const unsubscribe = held.conversation.events.subscribe(watcher);
    // Streamed deltas go to watchers too, never into the events (OpenHands).
    const unsubscribeDeltas = held.conversation.subscribeStreamingDeltas(watcher);
    return () => {
      unsubscribe();
      unsubscribeDeltas();
      remove();
      this.#options.settled();
    };
  }

  /** Number of watchers of conversation `id`. */
  watcherCount(id: string): number {
    return this.#watchers.count(id);
  }

  /** Stops the post-run snapshots (the service is closing). */
  close(): void {
    this.#closed = true;
  }
}
