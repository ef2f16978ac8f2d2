import { Readable } from 'node:stream';
import { extract as tarExtract } from 'tar-stream';
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
import { refuseReplacing } from './refuse-replacing.js';
import { writeBufferAtomic } from './write-buffer-atomic.js';

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
  /** Told the absolute path of each temporary file when it is created and when it is gone. */
  onTemporaryFile?: ((event: 'created' | 'gone', path: string) => void) | undefined;
}

/** Files up to this size are read into memory and written in one piece. */
const SMALL_FILE_BYTES = 64 * 1024;

/** Regular-file entry types. */
const FILE_TYPES = new Set(['file', 'contiguous-file']);

/** Device and FIFO entry types, which are never created. */
const SPECIAL_TYPES = new Set(['character-device', 'block-device', 'fifo']);

/**
 * Extracts a tar stream into `directory`, streaming (memory stays flat): each regular file is
 * written atomically (`writeStreamAtomic`: a temporary file renamed into place), so a failed,
 * aborted or truncated archive leaves no half-written file and no temporary file; directories
 * are created without following links and no entry is ever written through a symbolic link
 * (see `ArchiveDirectories`); symbolic links are created as links (their target is not
 * checked: nothing here follows them); set-id and sticky bits are dropped. A file or link
 * replaces only a regular file or a link: never a directory, FIFO, device or socket
 * (`refuseReplacing`), which is not even opened. GNU sparse entries (type `S`, pax
 * `GNU.sparse.*`) are refused, not expanded: their data is not the file's content.
 *
 * Entries extracted before a failure stay. Errors are `INVALID_ARGUMENT` archive errors naming
 * the entry (`archiveEntryError`; `details.reason` `too-many-entries` / `too-large` for the
 * limits, `malformed` for a stream that is not a tar or ends early), the signal's reason when it
 * fires, and file-system errors (`ENOSPC`, `EACCES`, ...) unchanged.
 */
export async function extractArchive(options: ExtractArchiveOptions): Promise<ArchiveSummary> {
  const { source, directory, walker, maxEntries, maxBytes, signal, onTemporaryFile } = options;
  const summary: ArchiveSummary = { files: 0, directories: 0, symlinks: 0, bytes: 0 };
  const parser = tarExtract();
  const stop = (reason: unknown) => parser.destroy(reason as Error);
  const onSourceError = (error: Error) => stop(error);
  const onAbort = () => stop(signal?.reason);
  source.once('error', onSourceError);
  signal?.addEventListener('abort', onAbort, { once: true });
  source.pipe(parser as unknown as NodeJS.WritableStream);
  if (signal?.aborted) onAbort();
  const directories = new ArchiveDirectories(directory, walker);
  let entries = 0;
  let declared = 0;
  try {
    for await (const entry of parser) {
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
      // tar-stream sets `pax` (its types leave it out) to the entry's pax header, if any.
      const { pax } = header as { pax?: Record<string, string> | null };
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
        const parent = directories.open(parts.slice(0, -1), name);
        const fileName = parts[parts.length - 1] as string;
        refuseReplacing(parent, fileName, name);
        const directoryPath = onTemporaryFile ? directories.realPathOf(parent) : '';
        const write = {
          directory: parent,
          name: fileName,
          mode: (header.mode ?? 0o644) & 0o777,
          onTemporaryFile: onTemporaryFile
            ? (event: 'created' | 'gone', temporary: string) =>
                onTemporaryFile(event, `${directoryPath}/${temporary}`)
            : undefined,
        };
        try {
          summary.bytes +=
            size <= SMALL_FILE_BYTES
              ? writeBufferAtomic({ ...write, content: await readEntry(entry, size) })
              : await writeStreamAtomic({ ...write, source: Readable.from(entry) });
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
      entry.resume();
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
    source.off('error', onSourceError);
    signal?.removeEventListener('abort', onAbort);
    source.unpipe(parser as unknown as NodeJS.WritableStream);
    parser.destroy();
    directories.close();
  }
}

/** The whole content of a small entry; rejects when the stream ends early. */
async function readEntry(entry: AsyncIterable<Buffer>, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk);
  const content = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  if (content.length !== size)
    throw new Error(`Unexpected end of data (${content.length} of ${size} bytes)`);
  return content;
}
