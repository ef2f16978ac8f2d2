import { lstatSync, readdirSync, renameSync, rmdirSync } from 'node:fs';
import type { DirectoryHandle } from '../../fs/directory-handle.js';
import { errnoOf } from '../../fs/path-error.js';
import { archiveEntryError } from './archive-entry-error.js';
import { openArchiveDirectory } from './open-archive-directory.js';
import { refuseReplacing } from './refuse-replacing.js';

/** Options of {@link publishStagedDirectory}. */
export interface PublishStagedDirectoryOptions {
  /** The directory holding both names, open. */
  parent: DirectoryHandle;
  /** The staged directory's temporary name in `parent`. */
  stagedName: string;
  /** Its final name in `parent`. */
  name: string;
  /** Its final path in the extraction, for errors. */
  key: string;
}

/**
 * Gives a staged directory its final name: one rename when the name is free; when something
 * took it meanwhile, a directory there is merged with the staged one entry by entry (each
 * directory opened without following a link, each file or link moved by rename after
 * `refuseReplacing`), anything else refused (`not-directory`, `through-symlink`). Returns true
 * when it merged. On a refusal the caller removes what is still staged.
 */
export function publishStagedDirectory(options: PublishStagedDirectoryOptions): boolean {
  const { parent, stagedName, name, key } = options;
  if (lstatSync(parent.child(name), { throwIfNoEntry: false }) === undefined) {
    try {
      renameSync(parent.child(stagedName), parent.child(name));
      return false;
    } catch (error) {
      const code = errnoOf(error);
      // Taken between the look and the rename: merge below, or refuse.
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'ENOTDIR') throw error;
    }
  }
  const staged = openArchiveDirectory(parent, stagedName, key, key);
  try {
    const target = openArchiveDirectory(parent, name, key, key);
    try {
      mergeInto(staged, target, key);
    } finally {
      target.close();
    }
  } finally {
    staged.close();
  }
  rmdirSync(parent.child(stagedName));
  return true;
}

/** Moves every entry of `source` into `target` (the path `prefix`), merging directories. */
function mergeInto(source: DirectoryHandle, target: DirectoryHandle, prefix: string): void {
  for (const dirent of readdirSync(source.ref, { withFileTypes: true })) {
    const { name } = dirent;
    const path = `${prefix}/${name}`;
    if (dirent.isDirectory()) {
      if (lstatSync(target.child(name), { throwIfNoEntry: false }) === undefined) {
        try {
          renameSync(source.child(name), target.child(name));
          continue;
        } catch (error) {
          const code = errnoOf(error);
          if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'ENOTDIR') throw error;
        }
      }
      const from = openArchiveDirectory(source, name, path, path);
      try {
        const into = openArchiveDirectory(target, name, path, path);
        try {
          mergeInto(from, into, path);
        } finally {
          into.close();
        }
      } finally {
        from.close();
      }
      rmdirSync(source.child(name));
      continue;
    }
    refuseReplacing(target, name, path);
    try {
      renameSync(source.child(name), target.child(name));
    } catch (error) {
      // The rename met a directory of that name.
      if (errnoOf(error) === 'EISDIR') {
        throw archiveEntryError(path, 'would replace a directory', 'is-directory');
      }
      throw error;
    }
  }
}
