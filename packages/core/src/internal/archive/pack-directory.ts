import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  read,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
} from 'node:fs';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { MAX_ARCHIVE_DEPTH } from '@agent-workspace/protocol/constants';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';
import type { PathWalker } from '../../fs/path-walker.js';
import { TarOutput } from './tar-output.js';

/** Options of {@link packDirectory}. */
export interface PackDirectoryOptions {
  /** The directory to pack, open; the caller may close it once this returns (a copy is kept). */
  directory: DirectoryHandle;
  /**
   * A confining walker: each directory entered is checked to lie beneath its root, and files
   * with several names (hard links, one of which may lie outside) are left out.
   */
  walker?: PathWalker | undefined;
  /** Stops the packing: the stream ends in error with the reason. */
  signal?: AbortSignal | undefined;
  /**
   * Put before every entry name (say `project/`, ending in `/`); the directory itself is then
   * packed first, under that name.
   */
  prefix?: string | undefined;
  /**
   * Whether to pack an entry, by its name relative to `directory` (no trailing `/`); a
   * directory left out is never entered.
   */
  include?: ((entry: PackEntry) => boolean) | undefined;
  /** Told of each regular file packed, with its full entry name and size. */
  onFile?: ((name: string, size: number) => void) | undefined;
  /** Called once the tree is packed, before the archive ends: may add entries of its own. */
  finish?: ((add: (name: string, body: Buffer) => Promise<void>) => Promise<void>) | undefined;
}

/** An entry {@link PackDirectoryOptions.include} decides on. */
export interface PackEntry {
  /** Path relative to the packed directory, `/`-separated. */
  name: string;
  type: 'directory' | 'file' | 'symlink';
}

/** What one packing walk carries down the tree. */
interface PackWalk {
  out: TarOutput;
  walker: PathWalker | undefined;
  prefix: string;
  include: PackDirectoryOptions['include'];
  onFile: PackDirectoryOptions['onFile'];
}

/** Files up to this size are read in one piece, straight into the output; larger ones stream. */
const SMALL_FILE_BYTES = 64 * 1024;

/** Read size of large files. */
const READ_CHUNK_BYTES = 256 * 1024;

/** Never follow the last component, never block on a FIFO swapped in. */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

const readAsync = promisify(read);

/**
 * Streams the tree below `directory` as a tar (names relative to it, directories ending in `/`),
 * read lazily with backpressure so memory stays flat whatever the tree's size. Nothing is
 * followed: each directory is entered by name from its open parent without following a link,
 * symbolic links are stored as links, and FIFOs, sockets and devices are left out. Regular files
 * keep their permission bits (set-id and sticky bits dropped) and modification time. An entry
 * that vanishes or changes type while the tree is read is left out; a file that shrinks while
 * it is read, or a tree deeper than `MAX_ARCHIVE_DEPTH`, ends the stream in error.
 *
 * Headers (`TarOutput`: `encodeTarHeaderInto`, tar-stream's encoder for the rest) and small
 * files are written straight into 256 KiB pieces, a file read into its place with one `pread`:
 * no stream or promise per entry.
 */
export function packDirectory(options: PackDirectoryOptions): Readable {
  const { signal } = options;
  const root = options.directory.openChild('.');
  const stream = Readable.from(packChunks(options, root), { objectMode: false });
  // The walk closes it, unless the stream ends before the walk starts.
  stream.once('close', () => root.close());
  if (signal !== undefined) {
    const onAbort = () => stream.destroy(signal.reason);
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      stream.once('close', () => signal.removeEventListener('abort', onAbort));
    }
  }
  return stream;
}

/** The archive's pieces; closes `root` when done, failed or stopped early. */
async function* packChunks(options: PackDirectoryOptions, root: DirectoryHandle) {
  const out = new TarOutput();
  const prefix = options.prefix ?? '';
  const walk: PackWalk = {
    out,
    walker: options.walker,
    prefix,
    include: options.include,
    onFile: options.onFile,
  };
  const added: Buffer[] = [];
  if (prefix !== '') {
    try {
      const { mode, mtimeMs } = root.stat();
      out.header({ name: prefix, type: 'directory', mode: mode & 0o777, mtimeMs });
    } catch (error) {
      root.close();
      throw error;
    }
  }
  yield* packTree(walk, root, prefix, 0);
  await options.finish?.(async (name, body) => {
    out.header({ name, type: 'file', size: body.length, mode: 0o644 });
    added.push(...out.body(body));
  });
  for (const piece of added) yield piece;
  yield* out.end();
}

/** Packs the entries of `directory` (which it closes) under `prefix`. */
async function* packTree(
  walk: PackWalk,
  directory: DirectoryHandle,
  prefix: string,
  depth: number,
): AsyncGenerator<Buffer> {
  const { out, walker, include } = walk;
  try {
    if (depth > MAX_ARCHIVE_DEPTH) {
      throw new Error(`${prefix} is more than ${MAX_ARCHIVE_DEPTH} levels deep`);
    }
    if (walker?.confine)
      walker.assertInside(directory.realPath(), { input: prefix, field: 'path' });
    const entries = readdirSync(directory.ref || '/', { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of entries) {
      const { name } = dirent;
      const entryName = `${prefix}${name}`;
      // The type comes from the directory listing; some file systems leave it unknown.
      const stats =
        dirent.isFile() || dirent.isDirectory() || dirent.isSymbolicLink()
          ? dirent
          : lstatOrUndefined(directory.child(name));
      if (stats === undefined) continue;
      if (include) {
        const type = stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'symlink';
        if (!include({ name: entryName.slice(walk.prefix.length), type })) continue;
      }
      if (stats.isDirectory()) {
        let child: DirectoryHandle;
        try {
          child = directory.openChild(name);
        } catch (error) {
          if (isVanished(error)) continue;
          throw error;
        }
        try {
          const { mode, mtimeMs } = child.stat();
          out.header({ name: `${entryName}/`, type: 'directory', mode: mode & 0o777, mtimeMs });
        } catch (error) {
          child.close();
          throw error;
        }
        yield* packTree(walk, child, `${entryName}/`, depth + 1);
      } else if (stats.isSymbolicLink()) {
        let target: string;
        try {
          target = readlinkSync(directory.child(name));
        } catch (error) {
          if (isVanished(error) || errnoOf(error) === 'EINVAL') continue;
          throw error;
        }
        out.header({ name: entryName, type: 'symlink', linkname: target, mode: 0o777 });
      } else if (stats.isFile()) {
        const large = packFile(walk, directory, name, entryName);
        // A large file's pieces go out from within packLargeFile, which closes it whatever happens.
        if (large !== undefined) yield* packLargeFile(out, large, entryName);
        else for (const piece of out.takeSealed()) yield piece;
      }
      if (out.full) yield out.take();
    }
  } finally {
    directory.close();
  }
}

/** A large file left open by {@link packFile}, its header written: its body is still to come. */
interface LargeFile {
  fd: number;
  size: number;
}

/**
 * Packs the regular file `name` of `directory`, unless it is no longer one, synchronously (no
 * promise per file): a small file whole, a large one only its header, returned open for
 * {@link packLargeFile}. Pieces it fills are sealed in `out`, for the caller to send.
 */
function packFile(
  walk: PackWalk,
  directory: DirectoryHandle,
  name: string,
  entryName: string,
): LargeFile | undefined {
  const { out, walker } = walk;
  let fd: number;
  try {
    fd = openSync(directory.child(name), FILE_FLAGS);
  } catch (error) {
    if (isVanished(error)) return undefined;
    throw error;
  }
  let handedOver = false;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || (walker?.confine && stats.nlink > 1)) return undefined;
    const { size } = stats;
    walk.onFile?.(entryName, size);
    const header = {
      name: entryName,
      type: 'file' as const,
      size,
      mode: stats.mode & 0o777,
      mtimeMs: stats.mtimeMs,
    };
    if (size <= SMALL_FILE_BYTES) {
      if (!out.fits(size)) out.seal();
      out.header(header);
      out.fill(size, (buffer, offset) => readExactly(fd, buffer, offset, size, entryName));
      return undefined;
    }
    out.header(header);
    out.seal();
    handedOver = true;
    return { fd, size };
  } finally {
    if (!handedOver) closeSync(fd);
  }
}

/**
 * Sends the pieces {@link packFile} sealed, then streams the body of the large file it left
 * open; closes it however the stream ends.
 */
async function* packLargeFile(
  out: TarOutput,
  { fd, size }: LargeFile,
  entryName: string,
): AsyncGenerator<Buffer> {
  try {
    for (const piece of out.takeSealed()) yield piece;
    for (let offset = 0; offset < size; ) {
      const piece = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, size - offset));
      let filled = 0;
      while (filled < piece.length) {
        const { bytesRead } = await readAsync(
          fd,
          piece,
          filled,
          piece.length - filled,
          offset + filled,
        );
        if (bytesRead === 0) {
          throw new Error(`${entryName} shrank to ${offset + filled} of ${size} bytes while read`);
        }
        filled += bytesRead;
      }
      offset += filled;
      yield piece;
    }
    out.pad(size);
  } finally {
    closeSync(fd);
  }
}

/** Reads the first `size` bytes of `fd` into `buffer` at `offset`; fails when the file shrank. */
function readExactly(fd: number, buffer: Buffer, offset: number, size: number, entryName: string) {
  let done = 0;
  while (done < size) {
    const bytesRead = readSync(fd, buffer, offset + done, size - done, done);
    if (bytesRead === 0) {
      throw new Error(`${entryName} shrank to ${done} of ${size} bytes while read`);
    }
    done += bytesRead;
  }
}

function lstatOrUndefined(target: string): Stats | undefined {
  try {
    return lstatSync(target);
  } catch (error) {
    if (isVanished(error)) return undefined;
    throw error;
  }
}

/** Gone, or replaced by something else, since the directory was read. */
function isVanished(error: unknown): boolean {
  const code = errnoOf(error);
  return code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR';
}
