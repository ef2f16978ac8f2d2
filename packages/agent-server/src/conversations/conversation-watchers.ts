import type { ConversationEventWire } from '@agent-workspace/protocol';
import type { ConversationWatcher } from './conversation-record.js';

/** Who follows which conversation (events sockets), by conversation id. */
export class ConversationWatchers {
  readonly #byId = new Map<string, Set<ConversationWatcher>>();

  /** Adds `watcher` of conversation `id`; returns its removal. */
  add(id: string, watcher: ConversationWatcher): () => void {
    let watchers = this.#byId.get(id);
    if (!watchers) {
      watchers = new Set();
      this.#byId.set(id, watchers);
    }
    watchers.add(watcher);
    return () => {
      watchers.delete(watcher);
      if (watchers.size === 0 && this.#byId.get(id) === watchers) this.#byId.delete(id);
    };
  }

  /** Number of watchers of conversation `id`. */
  count(id: string): number {
    return this.#byId.get(id)?.size ?? 0;
  }

  /** Tells every watcher of conversation `id`; a watcher's failure is its own. */
  notify(id: string, event: ConversationEventWire): void {
    for (const watcher of [...(this.#byId.get(id) ?? [])]) {
      try {
        watcher(event);
      } catch {
        // Its own failure.
      }
    }
  }
}
