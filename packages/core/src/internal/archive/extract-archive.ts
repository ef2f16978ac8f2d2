import { Readable } from 'node:stream';
import { WorkspaceError } from '../../errors/workspace-error.js';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';
import type { PathWalker } from '../../fs/path-walker.js';
import { writeStreamAtomic } from '../../fs/write-stream-atomic.js';
import { ArchiveDirectories } from './archive-directories.js';
import { archiveEntryComponents } from './archive-entry-components.js';
import { archiveEntryError, archiveProblemOf } from './archive-entry-error.js';
import { createArchiveSymlink } from './create-archive-symlink.js';
import { gnuSparseFormat } from './gnu-sparse-format.js';
import { processUmask } from './process-umask.js';
import { refuseReplacing } from './refuse-replacing.js';
import { tarEntries } from './tar-entries.js';
import { writeBufferAtomic } from './write-buffer-atomic.js';
import { writeNewFile } from './write-new-file.js';

/** What an extraction wrote. */
export interface ArchiveSummary {
  files: number;
  directories: number;
  symlinks: number;
  /** Bytes of file content. */
  bytes: number;
}

/** Options of {@link extractArchive}. */
export interface ExtractArchiveOptions {
  /** The tar stream; it is read to its end unless the extraction fails first. */
  source: Readable;
  /** The directory to extract into, open; the caller closes it afterwards. */
  directory: DirectoryHandle;
  /** A confining walker checks that each directory opened lies beneath its root. */
  walker?: PathWalker | undefined;
  /** Most entries accepted. */
  maxEntries: number;
  /** Most bytes of file content accepted (the sum of the entries' declared sizes). */
  maxBytes: number;
  /** Stops the extraction: the file being written is discarded, the reason rethrown. */
  signal?: AbortSignal | undefined;
  /**
   * Told the absolute path of each temporary file, and of each new directory filled under a
   * temporary name (`.archive.<hex>.part`), when it is created and when it is gone.
   */
  onTemporaryFile?: ((event: 'created' | 'gone', path: string) => void) | undefined;
}

/** Files up to this size are read into memory and written in one piece. */
const SMALL_FILE_BYTES = 64 * 1024;

/** Regular-file entry types. */
const FILE_TYPES = new Set(['file', 'contiguous-file']);

/** Device and FIFO entry types, which are never created. */
const SPECIAL_TYPES = new Set(['character-device', 'block-device', 'fifo']);

/**
 * Extracts a tar stream into `directory`, streaming (memory stays flat). No file is ever visible
 * half-written at its final path, and a failed, aborted or truncated archive leaves none and no
 * temporary file:
 * - a directory the extraction creates is filled under a temporary name and renamed into place
 *   whole once the archive leaves it (`ArchiveDirectories`; also when the extraction fails, after
 *   the file being written is removed). Its small files are created directly, `O_EXCL |
 *   O_NOFOLLOW`, since nothing in it is visible yet (`writeNewFile`): one rename per new
 *   directory, not one per file;
 * - any other file (in a directory that was there before, a second entry of the same name, a
 *   file over 64 KiB) is written to a temporary file renamed over its final name
 *   (`writeBufferAtomic`, `writeStreamAtomic`).
 *
 * Directories are created without following links and no entry is ever written through a
 * symbolic link (see `ArchiveDirectories`); symbolic links are created as links (their target
 * is not checked: nothing here follows them); set-id and sticky bits are dropped. A file or link
 * replaces only a regular file or a link: never a directory, FIFO, device or socket
 * (`refuseReplacing`), which is not even opened. GNU sparse entries (type `S`, pax
 * `GNU.sparse.*`) are refused, not expanded: their data is not the file's content.
 *
 * Entries extracted before a failure stay, but for one case: a new directory whose final name
 * was taken meanwhile by something that is neither a directory nor free (a file or a link made
 * by another process) is refused (`not-directory`, `through-symlink`) and what it held removed.
 * A process killed mid-extraction may leave the directory being filled under its temporary
 * name. Errors are `INVALID_ARGUMENT` archive errors naming
 * the entry (`archiveEntryError`; `details.reason` `too-many-entries` / `too-large` for the
 * limits, `malformed` for a stream that is not a tar or ends early), the signal's reason when it
 * fires, and file-system errors (`ENOSPC`, `EACCES`, ...) unchanged.
 */
export async function extractArchive(options: ExtractArchiveOptions): Promise<ArchiveSummary> {
  const { source, directory, walker, maxEntries, maxBytes, signal, onTemporaryFile } = options;
  const summary: ArchiveSummary = { files: 0, directories: 0, symlinks: 0, bytes: 0 };
  const directories = new ArchiveDirectories(directory, { walker, onTemporaryFile });
  let entries = 0;
  let declared = 0;
  const umask = processUmask();
  try {
    for await (const entry of tarEntries(source, signal)) {
      const { header } = entry;
      const name = header.name;
      entries += 1;
      if (entries > maxEntries) {
        throw archiveEntryError(
          name,
          `is one entry too many: the limit is ${maxEntries} entries`,
          'too-many-entries',
        );
      }
      const { pax } = header;
      const sparse = gnuSparseFormat(pax);
      if (sparse !== undefined) {
        throw archiveEntryError(
          pax?.['GNU.sparse.name'] ?? name,
          `is a GNU sparse file (pax format ${sparse}), which is refused: archive it without --sparse`,
          'sparse',
        );
      }
      const parts = archiveEntryComponents(name);
      // tar-stream gives no type for the typeflags it does not know, GNU's sparse 'S' among them.
      const type = header.type ?? 'unknown';
      if (FILE_TYPES.has(type)) {
        const size = header.size ?? 0;
        declared += size;
        if (declared > maxBytes) {
          throw archiveEntryError(
            name,
            `takes the archive to ${declared} bytes of content; the limit is ${maxBytes}`,
            'too-large',
          );
        }
        if (parts.length === 0) throw archiveEntryError(name, 'names no file', 'empty-name');
        const { handle: parent, staged } = directories.locate(parts.slice(0, -1), name);
        const fileName = parts[parts.length - 1] as string;
        const mode = (header.mode ?? 0o644) & 0o777;
        const content =
          size <= SMALL_FILE_BYTES
            ? (entry.body.takeWhole() ?? (await entry.body.readWhole()))
            : undefined;
        if (content !== undefined && staged) {
          // Not visible until its directory is published: no temporary file needed.
          const written = writeNewFile({ directory: parent, name: fileName, mode, content, umask });
          if (written !== undefined) {
            summary.bytes += written;
            summary.files += 1;
            continue;
          }
        }
        refuseReplacing(parent, fileName, name);
        const directoryPath = onTemporaryFile ? directories.realPathOf(parent) : '';
        const write = {
          directory: parent,
          name: fileName,
          mode,
          onTemporaryFile: onTemporaryFile
            ? (event: 'created' | 'gone', temporary: string) =>
                onTemporaryFile(event, `${directoryPath}/${temporary}`)
            : undefined,
        };
        try {
          summary.bytes +=
            content !== undefined
              ? writeBufferAtomic({ ...write, content })
              : await writeStreamAtomic({
                  ...write,
                  source: Readable.from(entry.body),
                });
        } catch (error) {
          // The rename met a directory of that name.
          if (errnoOf(error) === 'EISDIR') {
            throw archiveEntryError(name, 'would replace a directory', 'is-directory');
          }
          throw error;
        }
        summary.files += 1;
        continue;
      }
      if (type === 'directory') {
        if (parts.length > 0) {
          directories.setMode(parts, (header.mode ?? 0o755) & 0o777, name);
          summary.directories += 1;
        }
      } else if (type === 'symlink') {
        if (parts.length === 0) throw archiveEntryError(name, 'names no link', 'empty-name');
        createArchiveSymlink(directories, parts, header.linkname ?? '', name);
        summary.symlinks += 1;
      } else if (type === 'link') {
        throw archiveEntryError(name, 'is a hard link, which is refused', 'hard-link');
      } else if (SPECIAL_TYPES.has(type)) {
        throw archiveEntryError(name, `is a ${type}, which is refused`, 'special-file');
      } else if (header.type === null) {
        throw archiveEntryError(
          name,
          'has a tar type that is not extracted (such as a GNU sparse file, type S), which is refused',
          'unknown-type',
        );
      } else {
        throw archiveEntryError(name, `has an unsupported type (${type})`, 'unknown-type');
      }
    }
    directories.finish();
    return summary;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (archiveProblemOf(error) !== undefined || errnoOf(error) !== undefined) throw error;
    if (WorkspaceError.isInstance(error)) throw error;
    throw archiveEntryError(
      undefined,
      `is not a valid tar stream: ${(error as Error).message}`,
      'malformed',
      error,
    );
  } finally {
    directories.close();
  }
}
