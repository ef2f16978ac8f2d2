import { stat } from 'node:fs/promises';
import { errnoOf } from '../../fs/path-error.js';
import { CopyFailure, parentNotDirectoryFailure } from './copy-failure.js';
import { type CopyPaths, describeCopyError } from './describe-copy-error.js';

/**
 * Throws a {@link CopyFailure} when the destination is a directory, sits below a file or cannot
 * be inspected; a missing destination is fine.
 */
export async function checkCopyDestination(paths: CopyPaths): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(paths.destinationPath)).isDirectory();
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw await parentNotDirectoryFailure(paths);
    throw new CopyFailure(describeCopyError(error, 'inspect-destination', paths));
  }
  if (isDirectory) throw new CopyFailure(`destination is a directory: ${paths.destinationPath}`);
}
