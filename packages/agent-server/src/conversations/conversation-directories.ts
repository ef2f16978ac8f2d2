import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { type ConversationMeta, META_FILE } from './conversation-meta.js';
import { type ConversationRecord, conversationRecord } from './conversation-record.js';

/** Subdirectory of the server's state dir that holds one directory per conversation. */
export const CONVERSATIONS_DIR = 'conversations';

/** The sdk's directory (`state.json`, `events.jsonl`) inside a conversation's. */
const PERSISTENCE_SUBDIR = 'conversation';

/** Conversation directories the listing at first use reads at once. */
const LISTING_CONCURRENCY = 16;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The directory of conversation `id` under `stateDir`; `undefined` without a state dir. */
export function conversationDir(stateDir: string | undefined, id: string): string | undefined {
  return stateDir === undefined ? undefined : path.join(stateDir, CONVERSATIONS_DIR, id);
}

/** The sdk's persistence directory inside a conversation's directory. */
export function persistenceDirOf(dir: string): string {
  return path.join(dir, PERSISTENCE_SUBDIR);
}

/**
 * The persisted conversations under `stateDir`, listed from `meta.json` and the sdk's summary
 * (`state.json`, the events file's last line) alone, a few directories at a time. A directory
 * whose creation did not finish (no `meta.json`) is removed; one that cannot be read is logged
 * and skipped.
 */
export async function listPersistedConversations(options: {
  stateDir: string | undefined;
  log: FastifyBaseLogger;
}): Promise<ConversationRecord[]> {
  if (options.stateDir === undefined) return [];
  const root = path.join(options.stateDir, CONVERSATIONS_DIR);
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const records: ConversationRecord[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const record = await readConversation(path.join(root, names[next++]!), options.log);
      if (record !== undefined) records.push(record);
    }
  };
  await Promise.all(Array.from({ length: LISTING_CONCURRENCY }, worker));
  return records;
}

async function readConversation(
  dir: string,
  log: FastifyBaseLogger,
): Promise<ConversationRecord | undefined> {
  const name = path.basename(dir);
  try {
    let text: string;
    try {
      text = await readFile(path.join(dir, META_FILE), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !UUID_PATTERN.test(name)) {
        throw error;
      }
      await rm(dir, { recursive: true, force: true });
      log.warn({ dir }, 'removed a conversation whose creation did not finish');
      return undefined;
    }
    const meta = JSON.parse(text) as ConversationMeta;
    if (meta.id !== name) throw new Error(`meta.json names ${JSON.stringify(meta.id)}`);
    const { LocalConversation } = await import('@agent-workspace/sdk');
    const summary = await LocalConversation.inspect(persistenceDirOf(dir));
    return conversationRecord({
      meta,
      dir,
      status: summary.executionStatus,
      updatedAt: summary.updatedAt,
      lastUsed: 0,
    });
  } catch (error) {
    log.warn({ err: error, dir }, 'a persisted conversation could not be listed; skipped');
    return undefined;
  }
}
