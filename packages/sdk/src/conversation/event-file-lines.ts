import { type FileHandle, open } from 'node:fs/promises';
import { strictEvent } from './parse-event-line.js';

/** One newline-terminated line of a file. */
export interface FileLine {
  /** The line without its newline; `undefined` when it is longer than the reader's bound. */
  text: string | undefined;
  /** Offset of its first byte. */
  start: number;
  /** Its bytes with the newline. */
  bytes: number;
}

/** Bytes read at a time. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The newline-terminated lines of `handle` between `start` (a line start) and `end`, first to
 * last; bytes after the last newline are not a line. Reads a chunk at a time: memory holds one
 * chunk and one line of at most `maxLineBytes` (a longer line comes without its text).
 */
export async function* linesForward(
  handle: FileHandle,
  start: number,
  end: number,
  maxLineBytes: number,
): AsyncGenerator<FileLine> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const line = new LineParts(maxLineBytes);
  let lineStart = start;
  let position = start;
  while (position < end) {
    const { bytesRead } = await handle.read(
      buffer,
      0,
      Math.min(CHUNK_BYTES, end - position),
      position,
    );
    if (bytesRead === 0) return;
    let from = 0;
    for (;;) {
      const newline = buffer.indexOf(0x0a, from);
      if (newline === -1 || newline >= bytesRead) break;
      line.append(buffer.subarray(from, newline));
      const done: FileLine = { text: line.text(), start: lineStart, bytes: line.bytes + 1 };
      lineStart += done.bytes;
      line.clear();
      from = newline + 1;
      yield done;
    }
    line.append(buffer.subarray(from, bytesRead));
    position += bytesRead;
  }
}

/**
 * The newline-terminated lines of `handle` between `start` (a line start) and `end`, last to
 * first; bytes after the last newline before `end` are not a line. Memory as
 * {@link linesForward}.
 */
export async function* linesBackward(
  handle: FileHandle,
  start: number,
  end: number,
  maxLineBytes: number,
): AsyncGenerator<FileLine> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const line = new LineParts(maxLineBytes);
  // Offset of the newline that ends the line being gathered, once one was seen.
  let terminator: number | undefined;
  let position = end;
  while (position > start) {
    const size = Math.min(CHUNK_BYTES, position - start);
    const chunkStart = position - size;
    const { bytesRead } = await handle.read(buffer, 0, size, chunkStart);
    if (bytesRead < size) return; // the file shrank: nothing consistent is left to read
    let to = size;
    while (to > 0) {
      const newline = buffer.lastIndexOf(0x0a, to - 1);
      if (newline === -1) {
        if (terminator !== undefined) line.prepend(buffer.subarray(0, to));
        break;
      }
      if (terminator !== undefined) {
        line.prepend(buffer.subarray(newline + 1, to));
        const lineStart = chunkStart + newline + 1;
        const done: FileLine = {
          text: line.text(),
          start: lineStart,
          bytes: terminator - lineStart + 1,
        };
        line.clear();
        terminator = chunkStart + newline;
        to = newline;
        yield done;
      } else {
        terminator = chunkStart + newline;
        to = newline;
      }
    }
    position = chunkStart;
  }
  if (terminator !== undefined) {
    yield { text: line.text(), start, bytes: terminator - start + 1 };
  }
}

/** The pieces of one line, read in chunks; dropped once they pass the bound. */
class LineParts {
  readonly #maxBytes: number;
  #parts: Buffer[] = [];
  bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  append(part: Buffer): void {
    this.#add(part, (copy) => this.#parts.push(copy));
  }

  prepend(part: Buffer): void {
    this.#add(part, (copy) => this.#parts.unshift(copy));
  }

  text(): string | undefined {
    return this.bytes > this.#maxBytes ? undefined : Buffer.concat(this.#parts).toString('utf8');
  }

  clear(): void {
    this.#parts = [];
    this.bytes = 0;
  }

  #add(part: Buffer, keep: (copy: Buffer) => void): void {
    this.bytes += part.length;
    if (this.bytes > this.#maxBytes) this.#parts = [];
    else if (part.length > 0) keep(Buffer.from(part)); // the read buffer is reused
  }
}

/**
 * Where the valid part of an events file ends: after its last line, unless that line is torn (no
 * newline) or is not an event, which a crash mid-append leaves.
 */
export async function validEnd(
  eventsPath: string,
  size: number,
  maxLineBytes: number,
): Promise<number> {
  const handle = await open(eventsPath, 'r');
  try {
    let skippedLast = false;
    for await (const line of linesBackward(handle, 0, size, maxLineBytes)) {
      if (line.text?.trim() === '') continue;
      // A line too long to check was complete (it has its newline): it stays.
      const complete = line.text === undefined || strictEvent(line.text) !== undefined;
      if (complete || skippedLast) return line.start + line.bytes;
      skippedLast = true;
    }
    return 0;
  } finally {
    await handle.close();
  }
}

/** The first line start at or after `offset` in a file of `size` bytes. */
export async function lineStartAtOrAfter(
  file: string,
  offset: number,
  size: number,
): Promise<number> {
  if (offset <= 0) return 0;
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (let position = offset - 1; position < size; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      const newline = buffer.subarray(0, bytesRead).indexOf(0x0a);
      if (newline !== -1) return position + newline + 1;
      position += bytesRead;
    }
    return size;
  } finally {
    await handle.close();
  }
}
