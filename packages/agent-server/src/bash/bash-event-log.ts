import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { type PersistedBashEvent, persistedBashEventSchema } from './persisted-bash-event.js';

/** File name of the log inside the state directory. */
export const BASH_EVENT_LOG_FILE = 'bash-events.jsonl';

/** Longest a line waits in memory before it is written. */
const FLUSH_DELAY_MS = 50;

/** Pending bytes that trigger an immediate write. */
const FLUSH_BYTES = 1024 * 1024;

/** What {@link BashEventLog.read} found. */
export interface BashEventLogContents {
  events: PersistedBashEvent[];
  /** Lines that were not valid events (e.g. a line torn by a crash). */
  invalidLines: number;
}

/**
 * Append-only JSONL log of bash events in a state directory. Appends are buffered and written
 * in batches (at most {@link FLUSH_DELAY_MS} late); {@link BashEventLog.rewrite} compacts the file
 * to the given lines by writing a temporary file and renaming it over the log. File operations
 * run one at a time; a failed one is reported to `onError` and the log carries on.
 */
export class BashEventLog {
  readonly #file: string;
  readonly #onError: (error: unknown) => void;
  #handle: FileHandle | undefined;
  #pending: string[] = [];
  #pendingBytes = 0;
  #fileBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<void> = Promise.resolve();
  /** Bytes handed to writes (appends and rewrites) that have not completed. */
  #backlog = 0;
  readonly #onDrained = new Set<() => void>();

  /**
   * @param dir - State directory; created if missing.
   * @param onError - Receives write failures.
   */
  constructor(dir: string, onError: (error: unknown) => void) {
    this.#file = path.join(dir, BASH_EVENT_LOG_FILE);
    this.#onError = onError;
  }

  /** Bytes the log file holds once pending writes land (live and dropped events). */
  get fileBytes(): number {
    return this.#fileBytes;
  }

  /**
   * Bytes queued but not yet written (pending lines, queued appends and rewrites). Callers that
   * produce events keep it bounded by pausing their producers (see {@link BashEventLog.whenDrained}).
   */
  get backlogBytes(): number {
    return this.#backlog + this.#pendingBytes;
  }

  /** Calls `listener` once, when the backlog has dropped to `bytes` or below. */
  whenDrained(bytes: number, listener: () => void): void {
    const check = (): void => {
      if (this.backlogBytes > bytes) return;
      this.#onDrained.delete(check);
      listener();
    };
    this.#onDrained.add(check);
    check();
  }

  /** Reads the events logged in `dir`; a missing log reads as empty. */
  static async read(dir: string): Promise<BashEventLogContents> {
    const contents: BashEventLogContents = { events: [], invalidLines: 0 };
    const input = createReadStream(path.join(dir, BASH_EVENT_LOG_FILE), { encoding: 'utf8' });
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    try {
      for await (const line of lines) {
        if (line.trim() === '') continue;
        const parsed = persistedBashEventSchema.safeParse(parseJson(line));
        if (parsed.success) contents.events.push(parsed.data);
        else contents.invalidLines++;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return contents;
  }

  /** Writes the log as exactly `lines` (a compacted start) and opens it for appending. */
  async open(lines: Iterable<string>, bytes: number): Promise<void> {
    await mkdir(path.dirname(this.#file), { recursive: true, mode: 0o700 });
    await this.#replace(lines);
    this.#fileBytes = bytes;
  }

  /** Queues one line (without newline). */
  append(line: string): void {
    const text = `${line}\n`;
    const bytes = Buffer.byteLength(text);
    this.#pending.push(text);
    this.#pendingBytes += bytes;
    this.#fileBytes += bytes;
    if (this.#pendingBytes >= FLUSH_BYTES) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
  }

  /**
   * Replaces the log with `lines`, a snapshot of every live event (pending appends are part of
   * it and are dropped); `bytes` is their size including newlines.
   */
  rewrite(lines: Iterable<string>, bytes: number): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#fileBytes = bytes;
    this.#enqueue(() => this.#replace(lines), bytes);
  }

  /** Writes pending lines; resolves when every queued operation is done. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length > 0) {
      const text = this.#pending.join('');
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#enqueue(async () => {
        await this.#handle?.write(text);
      }, text.length);
    }
    return this.#chain;
  }

  /** Flushes, syncs and closes the file. */
  async close(): Promise<void> {
    await this.flush();
    this.#enqueue(async () => {
      const handle = this.#handle;
      this.#handle = undefined;
      if (!handle) return;
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    await this.#chain;
  }

  #enqueue(operation: () => Promise<void>, bytes = 0): void {
    this.#backlog += bytes;
    this.#chain = this.#chain
      .then(operation)
      .catch((error: unknown) => this.#onError(error))
      .finally(() => {
        this.#backlog -= bytes;
        for (const check of [...this.#onDrained]) check();
      });
  }

  /** Writes `lines` to a temporary file, renames it over the log and reopens for appending. */
  async #replace(lines: Iterable<string>): Promise<void> {
    const temporary = `${this.#file}.tmp`;
    const output = await open(temporary, 'w', 0o600);
    try {
      let batch: string[] = [];
      let batchBytes = 0;
      for (const line of lines) {
        batch.push(line, '\n');
        batchBytes += line.length + 1;
        if (batchBytes >= FLUSH_BYTES) {
          await output.write(batch.join(''));
          batch = [];
          batchBytes = 0;
        }
      }
      if (batch.length > 0) await output.write(batch.join(''));
      await output.sync();
    } catch (error) {
      await output.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await output.close();
    await this.#handle?.close();
    this.#handle = undefined;
    await rename(temporary, this.#file);
    this.#handle = await open(this.#file, 'a', 0o600);
  }
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
