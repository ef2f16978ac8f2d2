import { closeSync, type Dirent, readdirSync, readlinkSync, unlinkSync } from 'node:fs';
import {
  type WorkspaceDirectoryEntry,
  WorkspaceError,
  type WorkspacePathInfo,
} from '@agent-workspace/core';
import {
  type DirectoryHandle,
  openDirectory,
  openRegularFile,
  type PathWalker,
  PROC_FD_WALKS,
  pathError,
} from '@agent-workspace/core/internal';

/** Most entries one directory listing returns (in the order the file system gives them). */
export const MAX_LISTED_ENTRIES = 10_000;

/**
 * What is at `target`, found through the server's path walker (race-free, confined when the
 * server is): a directory, a regular file (size, mode, real path), something else, or nothing.
 * Symbolic links are followed as the walker follows them.
 *
 * @throws WorkspaceError `FORBIDDEN` outside the working directory (or a hard-linked file on a
 * confined server), `INVALID_ARGUMENT` for a malformed path.
 */
export function inspectServerPath(paths: PathWalker, target: string): WorkspacePathInfo {
  try {
    openDirectory(paths, target, 'path').close();
    return { kind: 'directory' };
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'NOT_FOUND')) return { kind: 'missing' };
    if (!WorkspaceError.isInstance(error) || error.details.reason !== 'not-directory') throw error;
  }
  let opened: ReturnType<typeof openRegularFile>;
  try {
    opened = openRegularFile(paths, target, 'path');
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'NOT_FOUND')) return { kind: 'missing' };
    if (WorkspaceError.isInstance(error) && error.details.reason === 'not-regular-file') {
      return { kind: 'other' };
    }
    throw error;
  }
  try {
    return {
      kind: 'file',
      size: opened.stats.size,
      mode: opened.stats.mode & 0o7777,
      realPath: PROC_FD_WALKS ? readlinkSync(`/proc/self/fd/${opened.fd}`) : target,
    };
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Entries up to two levels below the directory `target`, opened through the server's path walker
 * and entered without following links (a link to a directory is listed, not entered); hidden
 * entries are listed and not entered. At most {@link MAX_LISTED_ENTRIES}.
 *
 * @throws WorkspaceError `NOT_FOUND`, `INVALID_ARGUMENT` (not a directory), `FORBIDDEN`.
 */
export function listServerDirectory(paths: PathWalker, target: string): WorkspaceDirectoryEntry[] {
  const root = openDirectory(paths, target, 'path');
  const entries: WorkspaceDirectoryEntry[] = [];
  const shown = target.length > 1 ? target.replace(/\/+$/, '') : target;
  try {
    for (const entry of readEntries(root)) {
      if (entries.length >= MAX_LISTED_ENTRIES) break;
      const listed = describe(entry, shown === '/' ? '' : shown);
      entries.push(listed);
      if (!listed.isDirectory || listed.hidden) continue;
      let child: DirectoryHandle;
      try {
        child = root.openChild(entry.name);
      } catch {
        continue; // Replaced by something else meanwhile, or unreadable: listed, not entered.
      }
      try {
        for (const grandchild of readEntries(child)) {
          if (entries.length >= MAX_LISTED_ENTRIES) break;
          entries.push(describe(grandchild, listed.path));
        }
      } finally {
        child.close();
      }
    }
    return entries;
  } finally {
    root.close();
  }
}

/**
 * Removes the file or symbolic link `target` (the link itself, never what it points to) through
 * the server's path walker; nothing when it is already gone.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` for a directory, `FORBIDDEN`.
 */
export function removeServerFile(paths: PathWalker, target: string): void {
  const walk = paths.begin(target, 'path');
  let end: ReturnType<PathWalker['walk']>;
  try {
    end = paths.walk(walk);
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'NOT_FOUND')) return;
    throw error;
  }
  try {
    if (end.name === undefined)
      throw pathError('INVALID_ARGUMENT', walk, 'is a directory', 'is-directory');
    try {
      unlinkSync(end.parent.child(end.name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code === 'EISDIR') {
        throw pathError('INVALID_ARGUMENT', walk, 'is a directory', 'is-directory', error);
      }
      if (code === 'EACCES' || code === 'EPERM') {
        throw pathError(
          'FORBIDDEN',
          walk,
          'cannot be removed (permission denied)',
          'permission',
          error,
        );
      }
      throw error;
    }
  } finally {
    end.parent.close();
  }
}

/** The entries of an open directory, or none when it cannot be read. */
function readEntries(directory: DirectoryHandle): Dirent[] {
  try {
    return readdirSync(directory.ref || '/', { withFileTypes: true });
  } catch {
    return [];
  }
}

function describe(entry: Dirent, parent: string): WorkspaceDirectoryEntry {
  return {
    path: `${parent}/${entry.name}`,
    isDirectory: entry.isDirectory(),
    hidden: entry.name.startsWith('.'),
  };
}
