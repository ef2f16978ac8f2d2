import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { errnoOf } from '../../fs/path-error.js';
import { CopyFailure, parentNotDirectoryFailure } from './copy-failure.js';
import { type CopyPaths, describeCopyError } from './describe-copy-error.js';

/** `mkdir -p` of the destination's directory; a failure is a {@link CopyFailure}. */
export async function createCopyParent(paths: CopyPaths): Promise<void> {
  try {
    await mkdir(path.dirname(paths.destinationPath), { recursive: true });
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOTDIR' || code === 'EEXIST') throw await parentNotDirectoryFailure(paths);
    throw new CopyFailure(describeCopyError(error, 'create-parent', paths));
  }
}
