import { open } from 'node:fs/promises';
import path from 'node:path';
import { EVENTS_FILE } from './conversation-store.js';
import { linesBackward } from './event-file-lines.js';
import { parseJson } from './parse-event-line.js';
import {
  type PersistedConversationState,
  readPersistedState,
} from './persisted-conversation-state.js';

/** Lines {@link inspectPersistedConversation} looks at for the last event, and their bound. */
const INSPECTED_LINES = 8;
const INSPECTED_LINE_BYTES = 16 * 1024 ** 2;

/** What {@link inspectPersistedConversation} reads of a conversation without opening it. */
export interface PersistedConversationSummary {
  state: PersistedConversationState;
  /** Timestamp of the last event, if there is one. */
  lastEventAt: string | undefined;
}

/**
 * The state of the conversation persisted in `directory` and the time of its last event, read
 * without opening it (its files are not written).
 */
export async function inspectPersistedConversation(
  directory: string,
): Promise<PersistedConversationSummary> {
  const state = await readPersistedState(directory);
  const handle = await open(path.join(directory, EVENTS_FILE), 'r').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (handle === undefined) return { state, lastEventAt: undefined };
  try {
    const { size } = await handle.stat();
    let looked = 0;
    for await (const line of linesBackward(handle, 0, size, INSPECTED_LINE_BYTES)) {
      const timestamp = (parseJson(line.text) as { timestamp?: unknown } | undefined)?.timestamp;
      if (typeof timestamp === 'string') return { state, lastEventAt: timestamp };
      if (++looked === INSPECTED_LINES) break;
    }
    return { state, lastEventAt: undefined };
  } finally {
    await handle.close();
  }
}
