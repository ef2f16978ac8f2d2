import { randomBytes } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { errnoOf } from '../fs/path-error.js';
import { copyDirectoryTree } from '../internal/fs/copy-directory-tree.js';
import type { WorkspaceForkOptions } from '../workspace/workspace-fork.js';

/** Options of `LocalWorkspace.fork`. */
export interface ForkLocalWorkspaceOptions extends WorkspaceForkOptions {
  /**
   * Absolute path of the fork's working directory: must not exist, its parent must. Default
   * `<workingDir>-fork-<8 hex digits>` next to the original, on the same file system, so its
   * files can be cloned copy-on-write.
   */
  directory?: string | undefined;
}

/** How a forked `LocalWorkspace` was made (its `forkedFrom`). */
export interface LocalForkOrigin {
  /** The working directory of the workspace it was forked from. */
  readonly directory: string;
  /** `reflink` when the files were cloned copy-on-write, `copy` when their bytes were copied. */
  readonly method: 'reflink' | 'copy';
  /** Regular files copied. */
  readonly files: number;
  /** Bytes of those files. */
  readonly bytes: number;
}

/** Input of {@link copyWorkspaceDirectory}. */
export interface CopyWorkspaceDirectoryOptions extends ForkLocalWorkspaceOptions {
  /** The original's working directory. */
  workingDir: string;
}

/**
 * Copies a workspace's working directory for a fork (see `copyDirectoryTree`: nothing
 * followed, modes and times kept, copy-on-write where the file system can, all or nothing).
 * A working directory that is a git worktree (its `.git` is a file) is
 * `NOT_SUPPORTED`: its repository lives elsewhere and would be shared, not copied.
 */
export async function copyWorkspaceDirectory(
  options: CopyWorkspaceDirectoryOptions,
): Promise<{ directory: string; origin: LocalForkOrigin }> {
  const { workingDir, signal } = options;
  const directory = options.directory ?? `${workingDir}-fork-${randomBytes(4).toString('hex')}`;
  if (typeof directory !== 'string' || !path.isAbsolute(directory)) {
    throw invalidArgument('directory', 'must be an absolute path');
  }
  if (signal?.aborted) throw abortedError(signal);
  await refuseWorktree(workingDir);
  try {
    const copied = await copyDirectoryTree({ source: workingDir, destination: directory, signal });
    return { directory, origin: { directory: workingDir, ...copied } };
  } catch (error) {
    if (WorkspaceError.isInstance(error) && error.details.field === 'destination') {
      throw invalidArgument('directory', error.message.replace(/^destination /, ''));
    }
    throw error;
  }
}

async function refuseWorktree(workingDir: string): Promise<void> {
  let isFile = false;
  try {
    isFile = (await lstat(path.join(workingDir, '.git'))).isFile();
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT' && errnoOf(error) !== 'ENOTDIR') throw error;
  }
  if (isFile) {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message:
        `${workingDir} is a git worktree or submodule (its .git is a file): a copy would share ` +
        'its repository, ' +
        'not copy it; fork it as a worktree with @agent-workspace/git-workspaces',
    });
  }
}
