import {
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  lstatSync,
  opendirSync,
  openSync,
  readSync,
} from 'node:fs';
import { pipeline, Readable } from 'node:stream';
import { DirectoryHandle, TEMPORARY_FILE_PATTERN } from '@agent-workspace/core/internal';
import {
  MAX_TRAJECTORY_DEPTH,
  MAX_TRAJECTORY_ENTRIES,
  MAX_TRAJECTORY_JSON_BYTES,
  MAX_TRAJECTORY_LINE_BYTES,
} from '@agent-workspace/protocol';
import split2 from 'split2';
import { ZipFile } from 'yazl';
import { redactJsonText } from './redact-trajectory-secrets.js';

/** Files opened without following a link at the last component, never blocking on a FIFO. */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Lines longer than the limit are skipped whole (`skipOverflow`, which the types lack). */
const LINE_OPTIONS = { maxLength: MAX_TRAJECTORY_LINE_BYTES, skipOverflow: true };

/** Options of {@link streamTrajectoryZip}. */
export interface TrajectoryZipOptions {
  /** The conversation's directory (server-owned); opened without following links. */
  dir: string;
  /** Top folder of every entry in the zip (OpenHands: the conversation id as 32 hex). */
  rootName: string;
  /** Strings never to pass on (the server's session keys); values holding one are redacted. */
  knownSecrets: readonly string[];
  /** Ends the zip early (the stream errors). */
  signal?: AbortSignal | undefined;
}

/** One entry found by the walk: its path components below the root. */
interface TrajectoryEntry {
  parts: string[];
  directory: boolean;
  mtime: Date;
}

/**
 * A zip of the conversation directory `dir`, streamed (files are read one at a time as the zip is
 * written; memory stays flat). Directories are entered and files opened without following
 * symbolic links, component by component from the open directory, so a link planted or swapped
 * in cannot pull anything else in; links, FIFOs and sockets are left out, as are the temporary
 * files of atomic writes. `.json` and `.jsonl` files pass through {@link redactJsonText}: secret
 * fields and the server's keys are redacted, and a file or line that is not JSON is left out (an
 * empty entry, a dropped line) rather than passed on unchecked. At most `MAX_TRAJECTORY_ENTRIES`
 * entries, `MAX_TRAJECTORY_DEPTH` levels.
 *
 * @throws the file-system error (`ENOENT`, `ELOOP` for a link, `ENOTDIR`) when `dir` cannot be
 * opened as a directory.
 */
export function streamTrajectoryZip(options: TrajectoryZipOptions): Readable {
  const root = DirectoryHandle.open(options.dir);
  let entries: TrajectoryEntry[];
  try {
    entries = walkTrajectory(root);
  } catch (error) {
    root.close();
    throw error;
  }
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  // Once closed, the root's descriptor number may be reused: no entry is opened after that.
  let rootClosed = false;
  const closeRoot = () => {
    rootClosed = true;
    root.close();
  };
  output.once('close', closeRoot);
  output.once('end', closeRoot);
  output.once('error', closeRoot);
  if (options.signal) {
    const abort = () => output.destroy(options.signal?.reason as Error | undefined);
    if (options.signal.aborted) abort();
    else options.signal.addEventListener('abort', abort, { once: true });
    output.once('close', () => options.signal?.removeEventListener('abort', abort));
  }
  zip.addEmptyDirectory(`${options.rootName}/`);
  for (const entry of entries) {
    const name = `${options.rootName}/${entry.parts.join('/')}`;
    if (entry.directory) {
      zip.addEmptyDirectory(`${name}/`, { mtime: entry.mtime });
      continue;
    }
    zip.addReadStreamLazy(name, { mtime: entry.mtime }, (callback) => {
      if (rootClosed) {
        callback(new Error('the trajectory zip was closed'), Readable.from([]));
        return;
      }
      try {
        callback(null, openEntry(root, entry.parts, options.knownSecrets));
      } catch (error) {
        callback(error, Readable.from([]));
      }
    });
  }
  zip.end();
  return output;
}

/** The directories and regular files below `root`, breadth first, within the limits. */
function walkTrajectory(root: DirectoryHandle): TrajectoryEntry[] {
  const entries: TrajectoryEntry[] = [];
  const queue: string[][] = [[]];
  while (queue.length > 0 && entries.length < MAX_TRAJECTORY_ENTRIES) {
    const parts = queue.shift() as string[];
    let directory: DirectoryHandle;
    try {
      directory = root.openDescendant(parts);
    } catch {
      continue; // Gone or swapped for a link since it was listed: left out.
    }
    try {
      const listing = opendirSync(directory.ref || '/');
      try {
        for (let dirent = listing.readSync(); dirent; dirent = listing.readSync()) {
          if (entries.length >= MAX_TRAJECTORY_ENTRIES) break;
          const isDirectory = dirent.isDirectory();
          if (!isDirectory && !dirent.isFile()) continue;
          if (!isDirectory && TEMPORARY_FILE_PATTERN.test(dirent.name)) continue;
          const childParts = [...parts, dirent.name];
          if (isDirectory && childParts.length > MAX_TRAJECTORY_DEPTH) continue;
          let mtime: Date;
          try {
            mtime = lstatSync(directory.child(dirent.name)).mtime;
          } catch {
            continue;
          }
          entries.push({ parts: childParts, directory: isDirectory, mtime });
          if (isDirectory) queue.push(childParts);
        }
      } finally {
        listing.closeSync();
      }
    } finally {
      directory.close();
    }
  }
  return entries.sort((a, b) => compareParts(a.parts, b.parts));
}

/** The bytes of the file `parts`, redacted when it is JSON; empty when it is gone or no file. */
function openEntry(
  root: DirectoryHandle,
  parts: string[],
  knownSecrets: readonly string[],
): Readable {
  const name = parts[parts.length - 1] as string;
  let fd: number;
  const parent = root.openDescendant(parts.slice(0, -1));
  try {
    fd = openSync(parent.child(name), FILE_FLAGS);
  } catch {
    return Readable.from([]); // Vanished or swapped for a link meanwhile: an empty entry.
  } finally {
    parent.close();
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    return Readable.from([]);
  }
  const lower = name.toLowerCase();
  if (lower.endsWith('.json')) {
    const text = readSmallFile(fd, MAX_TRAJECTORY_JSON_BYTES);
    const redacted = text === undefined ? undefined : redactJsonText(text, knownSecrets);
    return Readable.from(redacted === undefined ? [] : [Buffer.from(redacted)]);
  }
  const source = createReadStream('', { fd });
  if (!lower.endsWith('.jsonl')) return source;
  const lines = split2((line: string) => {
    const redacted = redactJsonText(line, knownSecrets);
    return redacted === undefined ? undefined : `${redacted}\n`;
  }, LINE_OPTIONS);
  return pipeline(source, lines, () => {}) as unknown as Readable;
}

/** The whole file as UTF-8 (closing `fd`), or `undefined` when it is larger than `limit`. */
function readSmallFile(fd: number, limit: number): string | undefined {
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > limit) return undefined;
      chunks.push(chunk.subarray(0, read));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function compareParts(a: readonly string[], b: readonly string[]): number {
  const left = a.join('/');
  const right = b.join('/');
  return left < right ? -1 : left > right ? 1 : 0;
}
