import {
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  type Stats,
} from 'node:fs';
import { Readable } from 'node:stream';
import { MAX_ARCHIVE_DEPTH } from '@agent-workspace/protocol/constants';
import { type Headers, type Pack, pack as tarPack } from 'tar-stream';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';
import type { PathWalker } from '../../fs/path-walker.js';

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
  archive: Pack;
  walker: PathWalker | undefined;
  prefix: string;
  include: PackDirectoryOptions['include'];
  onFile: PackDirectoryOptions['onFile'];
}

/** Files up to this size are read in one piece; larger ones stream. */
const SMALL_FILE_BYTES = 64 * 1024;

/** Smallest piece the stream yields (but the last). */
const OUTPUT_CHUNK_BYTES = 64 * 1024;

/** Read size of large files. */
const READ_CHUNK_BYTES = 256 * 1024;

/** Never follow the last component, never block on a FIFO swapped in. */
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Streams the tree below `directory` as a tar (names relative to it, directories ending in `/`),
 * read lazily with backpressure so memory stays flat whatever the tree's size. Nothing is
 * followed: each directory is entered by name from its open parent without following a link,
 * symbolic links are stored as links, and FIFOs, sockets and devices are left out. Regular files
 * keep their permission bits (set-id and sticky bits dropped) and modification time. An entry
 * that vanishes or changes type while the tree is read is left out; a file that shrinks while
 * it is read, or a tree deeper than `MAX_ARCHIVE_DEPTH`, ends the stream in error.
 */
export function packDirectory(options: PackDirectoryOptions): Readable {
  const archive = tarPack();
  const { signal } = options;
  const onAbort = () => archive.destroy(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const prefix = options.prefix ?? '';
  const walk: PackWalk = {
    archive,
    walker: options.walker,
    prefix,
    include: options.include,
    onFile: options.onFile,
  };
  const root = options.directory.openChild('.');
  const work = (async () => {
    try {
      await packRoot(walk, root);
      await options.finish?.((name, body) =>
        addEntry(archive, { name, type: 'file', size: body.length, mode: 0o644 }, body),
      );
      archive.finalize();
    } catch (error) {
      archive.destroy(error as Error);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  })();
  void work;
  return Readable.from(coalesce(archive as AsyncIterable<Buffer>), { objectMode: false });
}

/**
 * The chunks of `source` joined into pieces of at least {@link OUTPUT_CHUNK_BYTES}: the archive
 * comes as 512-byte headers and small bodies, and one socket write each would cost more than
 * the files.
 */
async function* coalesce(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of source) {
    pending.push(chunk);
    bytes += chunk.length;
    if (bytes >= OUTPUT_CHUNK_BYTES) {
      yield Buffer.concat(pending, bytes);
      pending = [];
      bytes = 0;
    }
  }
  if (bytes > 0) yield Buffer.concat(pending, bytes);
}

/** Packs the directory itself when the walk has a prefix, then its tree; closes `root`. */
async function packRoot(walk: PackWalk, root: DirectoryHandle): Promise<void> {
  if (walk.prefix !== '') {
    try {
      const { mode, mtime } = root.stat();
      await addEntry(walk.archive, {
        name: walk.prefix,
        type: 'directory',
        mode: mode & 0o777,
        mtime,
      });
    } catch (error) {
      root.close();
      throw error;
    }
  }
  await packTree(walk, root, walk.prefix, 0);
}

/** Packs the entries of `directory` (which it closes) under `prefix`. */
async function packTree(
  walk: PackWalk,
  directory: DirectoryHandle,
  prefix: string,
  depth: number,
): Promise<void> {
  const { archive, walker, include } = walk;
  try {
    if (depth > MAX_ARCHIVE_DEPTH) {
      throw new Error(`${prefix} is more than ${MAX_ARCHIVE_DEPTH} levels deep`);
    }
    if (walker?.confine)
      walker.assertInside(directory.realPath(), { input: prefix, field: 'path' });
    const entries = readdirSync(directory.ref || '/', { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of entries) {
      if (archive.destroyed) return;
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
        const { mode, mtime } = child.stat();
        await addEntry(archive, {
          name: `${entryName}/`,
          type: 'directory',
          mode: mode & 0o777,
          mtime,
        });
        await packTree(walk, child, `${entryName}/`, depth + 1);
      } else if (stats.isSymbolicLink()) {
        let target: string;
        try {
          target = readlinkSync(directory.child(name));
        } catch (error) {
          if (isVanished(error) || errnoOf(error) === 'EINVAL') continue;
          throw error;
        }
        await addEntry(archive, {
          name: entryName,
          type: 'symlink',
          linkname: target,
          mode: 0o777,
        });
      } else if (stats.isFile()) {
        await packFile(walk, directory, name, entryName);
      }
    }
  } finally {
    directory.close();
  }
}

/** Packs the regular file `name` of `directory`, unless it is no longer one. */
async function packFile(
  walk: PackWalk,
  directory: DirectoryHandle,
  name: string,
  entryName: string,
): Promise<void> {
  const { archive, walker } = walk;
  let fd: number;
  try {
    fd = openSync(directory.child(name), FILE_FLAGS);
  } catch (error) {
    if (isVanished(error)) return;
    throw error;
  }
  let handedOver = false;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || (walker?.confine && stats.nlink > 1)) return;
    const header: Headers = {
      name: entryName,
      type: 'file',
      size: stats.size,
      mode: stats.mode & 0o777,
      mtime: stats.mtime,
    };
    walk.onFile?.(entryName, stats.size);
    if (stats.size <= SMALL_FILE_BYTES) {
      await addEntry(archive, header, readExactly(fd, stats.size, entryName));
      return;
    }
    const { sink, done } = openEntry(archive, header);
    handedOver = true;
    const file = createReadStream('', {
      fd,
      start: 0,
      end: stats.size - 1,
      highWaterMark: READ_CHUNK_BYTES,
    });
    try {
      for await (const chunk of file) {
        if (!sink.write(chunk as Buffer)) await drained(sink);
      }
    } catch (error) {
      sink.destroy(error as Error);
      throw error;
    }
    sink.end();
    await done;
  } finally {
    if (!handedOver) closeSync(fd);
  }
}

/** Adds an entry with no or a buffered body; resolves once the archive took it. */
function addEntry(archive: Pack, header: Headers, body?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const callback = (error?: Error | null) => (error ? reject(error) : resolve());
    if (body === undefined) archive.entry(header, callback);
    else archive.entry(header, body, callback);
  });
}

/** Starts an entry whose body is written to `sink`; `done` settles once the archive took it. */
function openEntry(archive: Pack, header: Headers) {
  let settle: (error?: Error | null) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });
  // Observed here too: a failed read rejects it before anyone awaits it.
  done.catch(() => {});
  const sink = archive.entry(header, (error) => settle(error));
  return { sink, done };
}

/** Resolves on the sink's next `drain`; rejects when it closes first (the archive went away). */
function drained(sink: ReturnType<Pack['entry']>): Promise<void> {
  return new Promise((resolve, reject) => {
    if (sink.destroyed) {
      reject(new Error('the archive stream was closed'));
      return;
    }
    const onDrain = () => {
      sink.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      sink.off('drain', onDrain);
      reject(new Error('the archive stream was closed'));
    };
    sink.once('drain', onDrain);
    sink.once('close', onClose);
  });
}

/** Reads exactly `size` bytes from the start of `fd`; fails when the file shrank. */
function readExactly(fd: number, size: number, entryName: string): Buffer {
  const buffer = Buffer.allocUnsafe(size);
  let offset = 0;
  while (offset < size) {
    const read = readSync(fd, buffer, offset, size - offset, offset);
    if (read === 0) throw new Error(`${entryName} shrank to ${offset} of ${size} bytes while read`);
    offset += read;
  }
  return buffer;
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
