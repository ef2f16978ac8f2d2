import { mkdir, realpath } from 'node:fs/promises';
import { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';

/** A directory on this machine could not be opened; the message says why, naming it. */
export class LocalDirectoryFailure extends Error {}

/**
 * Opens a directory on the caller's machine (links in the path are followed: the caller named
 * it). With `create`, it and its parents are made first. Throws {@link LocalDirectoryFailure}
 * for a missing path, a file, or a permission problem; other errors unchanged.
 */
export async function openLocalDirectory(
  target: string,
  role: 'source' | 'destination',
  options: { create?: boolean } = {},
): Promise<{ handle: DirectoryHandle; realPath: string }> {
  try {
    if (options.create) await mkdir(target, { recursive: true });
    const realPath = await realpath(target);
    return { handle: DirectoryHandle.open(realPath), realPath };
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT')
      throw new LocalDirectoryFailure(`${role} directory does not exist: ${target}`);
    if (code === 'ENOTDIR' || code === 'EEXIST') {
      throw new LocalDirectoryFailure(`${role} is not a directory: ${target}`);
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new LocalDirectoryFailure(`permission denied: ${target}`);
    }
    throw error;
  }
}
