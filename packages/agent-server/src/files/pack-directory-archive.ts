import type { Readable } from 'node:stream';
import { openDirectory, type PathWalker, packDirectory } from '@agent-workspace/core/internal';
import { pathHttpError } from './path-http-error.js';

/**
 * Opens the directory a client path names (race-free and confined when the server is; see
 * `openDirectory`) and streams its tree as a tar (see `packDirectory`: nothing is followed,
 * links are stored as links, files with several names are left out when confined). Errors
 * before the first byte: 404 `File not found`, 400 `path is not a directory: ...`, 403 for
 * permission and confinement.
 */
export function packDirectoryArchive(
  paths: PathWalker,
  input: string,
  signal: AbortSignal,
): Readable {
  let directory: ReturnType<typeof openDirectory>;
  try {
    directory = openDirectory(paths, input, 'path');
  } catch (error) {
    throw pathHttpError(error, 'download');
  }
  try {
    return packDirectory({ directory, walker: paths, signal });
  } finally {
    directory.close();
  }
}
