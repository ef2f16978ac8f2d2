import path from 'node:path';
import { type CopyPaths, findNonDirectoryAncestor } from './describe-copy-error.js';

/** A file problem of a copy to or from this machine; its message becomes the result's `error`. */
export class CopyFailure extends Error {}

/** The failure for a destination whose parent path runs through a file, naming that file. */
export async function parentNotDirectoryFailure(paths: CopyPaths): Promise<CopyFailure> {
  const parent = path.dirname(paths.destinationPath);
  const blocker = await findNonDirectoryAncestor(parent);
  return new CopyFailure(
    blocker
      ? `destination parent is not a directory: ${blocker} is a file`
      : `destination parent is not a directory: ${parent}`,
  );
}
