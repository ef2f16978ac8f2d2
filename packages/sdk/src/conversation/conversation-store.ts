import { type FileHandle, mkdir, open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import { DirectoryHandle, writeStreamAtomic } from '@agent-workspace/core/internal';
import {
  CONVERSATION_EXECUTION_STATUSES,
  type ConversationEventWire,
  conversationEventWireSchema,
} from '@agent-workspace/protocol';
import { z } from 'zod';

/** File of a persisted conversation's state (rewritten atomically on each change). */
export const STATE_FILE = 'state.json';
/** File of a persisted conversation's events: one JSON event per line, appended. */
export const EVENTS_FILE = 'events.jsonl';

const persistedStateSchema = z.looseObject({
  id: z.string().min(1),
  execution_status: z.enum(CONVERSATION_EXECUTION_STATUSES),
  agent: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** The state file's content. */
export type PersistedConversationState = z.infer<typeof persistedStateSchema>;

/** What {@link ConversationStore.open} read back. */
export interface OpenedConversation {
  store: ConversationStore;
  state: PersistedConversationState;
  events: ConversationEventWire[];
}

/**
 * A conversation on disk: `state.json` (replaced atomically: written aside, synced, renamed) and
 * `events.jsonl` (append-only, one event per line). A crash can tear only the last line; opening
 * skips it and cuts it off, so the next append starts on a clean line. Writes are queued in
 * order; the first failure is kept and thrown by {@link ConversationStore.flush}. One process
 * at a time per directory.
 */
export class ConversationStore {
  readonly #directory: string;
  readonly #events: FileHandle;
  #tail: Promise<void> = Promise.resolve();
  #failure: unknown;
  #closed = false;

  private constructor(directory: string, events: FileHandle) {
    this.#directory = directory;
    this.#events = events;
  }

  /** Starts a conversation in `directory` (created if missing); refuses one that holds one. */
  static async create(
    directory: string,
    state: PersistedConversationState,
  ): Promise<ConversationStore> {
    await mkdir(directory, { recursive: true });
    if (await exists(path.join(directory, STATE_FILE))) {
      throw invalidArgument(
        'persistenceDir',
        `(${directory}) already holds a conversation; reopen it with LocalConversation.open()`,
      );
    }
    // Without a state file there is no conversation: events left by a failed create go.
    const events = await open(path.join(directory, EVENTS_FILE), 'w');
    try {
      await writeFileAtomic(path.join(directory, STATE_FILE), `${JSON.stringify(state)}\n`);
    } catch (error) {
      await events.close();
      throw error;
    }
    return new ConversationStore(directory, events);
  }

  /** Reads the conversation in `directory` back. `NOT_FOUND` when there is none. */
  static async open(directory: string): Promise<OpenedConversation> {
    const statePath = path.join(directory, STATE_FILE);
    let stateText: string;
    try {
      stateText = await readFile(statePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new WorkspaceError({
        code: 'NOT_FOUND',
        message: `persistenceDir (${directory}) holds no conversation: ${STATE_FILE} is missing`,
        details: { field: 'persistenceDir', path: statePath },
      });
    }
    const state = parseOrThrow(persistedStateSchema, stateText, statePath);
    const eventsPath = path.join(directory, EVENTS_FILE);
    const { events, validBytes, totalBytes } = await readEvents(eventsPath);
    const handle = await open(eventsPath, 'a');
    if (validBytes < totalBytes) await handle.truncate(validBytes);
    return { store: new ConversationStore(directory, handle), state, events };
  }

  /** Queues `event` for appending. */
  append(event: ConversationEventWire): void {
    const line = `${JSON.stringify(event)}\n`;
    this.#enqueue(async () => {
      await this.#events.write(line);
    });
  }

  /** Queues an atomic rewrite of the state file. */
  saveState(state: PersistedConversationState): void {
    const text = `${JSON.stringify(state)}\n`;
    this.#enqueue(() => writeFileAtomic(path.join(this.#directory, STATE_FILE), text));
  }

  /** Waits for the queued writes and syncs the events file; throws the first write failure. */
  async flush(): Promise<void> {
    this.#enqueue(() => this.#events.datasync());
    await this.#tail;
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Flushes, then closes the events file. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.flush();
    } finally {
      this.#closed = true;
      await this.#events.close();
    }
  }

  #enqueue(task: () => Promise<void>): void {
    this.#tail = this.#tail.then(async () => {
      if (this.#failure !== undefined || this.#closed) return;
      try {
        await task();
      } catch (error) {
        this.#failure = error;
      }
    });
  }
}

/** Reads an events file; a last line that is torn (or does not parse) is left out. */
async function readEvents(
  eventsPath: string,
): Promise<{ events: ConversationEventWire[]; validBytes: number; totalBytes: number }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(eventsPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return { events: [], validBytes: 0, totalBytes: 0 };
  }
  const events: ConversationEventWire[] = [];
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    line += 1;
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const text = bytes.subarray(start, end).toString('utf8');
    const isLast = newline === -1 || newline === bytes.length - 1;
    if (text.trim() !== '') {
      const parsed = safeParseEvent(text);
      if (parsed === undefined) {
        if (isLast) break; // torn by a crash mid-append: skipped
        throw new WorkspaceError({
          code: 'INVALID_CONFIG',
          message: `${eventsPath}: line ${line} is not a conversation event`,
          details: { path: eventsPath, line },
        });
      }
      if (newline === -1) break; // complete JSON but no newline: the write was cut short
      events.push(parsed);
    }
    start = end + 1;
  }
  return { events, validBytes: Math.min(start, bytes.length), totalBytes: bytes.length };
}

function safeParseEvent(text: string): ConversationEventWire | undefined {
  try {
    const parsed = conversationEventWireSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function parseOrThrow<T>(schema: z.ZodType<T>, text: string, file: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `${file} is not JSON: ${(error as Error).message}`,
      details: { path: file },
    });
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || '(root)';
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `${file}: ${field}: ${issue.message}`,
    details: { path: file, field },
  });
}

/** Writes `text` aside, syncs it and renames it over `file`: readers see the old or the new. */
async function writeFileAtomic(file: string, text: string): Promise<void> {
  await writeStreamAtomic({
    source: Readable.from([text]),
    directory: DirectoryHandle.byPath(path.dirname(file)),
    name: path.basename(file),
    mode: 0o600,
    durable: true,
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
