import type { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import {
  type DirectoryHandle,
  type PathWalker,
  packDirectory,
} from '@agent-workspace/core/internal';
import {
  WORKSPACE_ARCHIVE_MANIFEST_NAME,
  type WorkspaceArchiveManifestWire,
} from '@agent-workspace/protocol';
import { compileArchiveExcludes, isGitSecret } from './archive-excludes.js';

/** Options of {@link streamArchiveTarGz}. */
export interface StreamArchiveTarGzOptions {
  /** The directory to archive, open (a copy is kept; the caller may close it). */
  directory: DirectoryHandle;
  /** Top directory of every entry (the archived directory's name). */
  source: string;
  /** Exclude globs, defaults first (see `compileArchiveExcludes`). */
  excludes: readonly string[];
  /** The confining walker of the server. */
  walker: PathWalker;
  signal: AbortSignal;
  /** Told when the manifest is left out because the directory has a file of its name. */
  onManifestCollision?: (() => void) | undefined;
}

/**
 * Streams OpenHands' `tar.gz` workspace archive: the tree below `directory` under `<source>/`,
 * read lazily and race-free by core's `packDirectory` (nothing followed; links, FIFOs, sockets
 * and devices left out; excluded directories never entered; git's credential files never
 * packed), gzip-compressed as it goes, ending with the manifest unless a file took its name.
 */
export function streamArchiveTarGz(options: StreamArchiveTarGzOptions): Readable {
  const { source, excludes } = options;
  const excluded = compileArchiveExcludes(excludes);
  const manifestName = `${source}/${WORKSPACE_ARCHIVE_MANIFEST_NAME}`;
  let fileCount = 0;
  let totalBytes = 0;
  let collision = false;
  const tar = packDirectory({
    directory: options.directory,
    walker: options.walker,
    signal: options.signal,
    prefix: `${source}/`,
    include: ({ name, type }) =>
      type !== 'symlink' && !isGitSecret(name) && !excluded(name, type === 'directory'),
    onFile: (name, size) => {
      fileCount += 1;
      totalBytes += size;
      if (name === manifestName) collision = true;
    },
    finish: async (add) => {
      if (collision) {
        options.onManifestCollision?.();
        return;
      }
      const manifest: WorkspaceArchiveManifestWire = {
        excludes: [...excludes],
        file_count: fileCount,
        format: 'tar.gz',
        source,
        total_bytes: totalBytes,
      };
      await add(manifestName, Buffer.from(JSON.stringify(manifest, null, 2), 'utf8'));
    },
  });
  const gzip = createGzip();
  tar.on('error', (error) => gzip.destroy(error));
  return tar.pipe(gzip);
}
