import { lstatSync, readdirSync } from 'node:fs';
import type { DirectoryHandle } from '@agent-workspace/core/internal';
import { WORKSPACE_ARCHIVE_REPOSITORY_DEPTH } from '@agent-workspace/protocol';

/** Directories never searched for the repository: they may hold vendored clones. */
const SKIPPED = new Set(['node_modules', 'venv', 'site-packages', 'vendor']);

/**
 * The directory the workspace archive captures: `directory` itself when it holds `.git`,
 * otherwise the one git work tree found at most `WORKSPACE_ARCHIVE_REPOSITORY_DEPTH` levels
 * below it (hidden and vendored directories skipped, links never followed, no descent into a
 * repository once found), otherwise — none or several — `directory`. The result is open; the
 * caller closes it (and still closes `directory`).
 */
export function findArchiveRepository(directory: DirectoryHandle): DirectoryHandle {
  if (hasGitEntry(directory)) return directory.openChild('.');
  const found: DirectoryHandle[] = [];
  try {
    search(directory, 0, found);
    if (found.length === 1) return found.pop() as DirectoryHandle;
    return directory.openChild('.');
  } finally {
    for (const handle of found) handle.close();
  }
}

/** Collects repositories below `directory` into `found`; stops once there are two. */
function search(directory: DirectoryHandle, depth: number, found: DirectoryHandle[]): void {
  if (depth >= WORKSPACE_ARCHIVE_REPOSITORY_DEPTH || found.length > 1) return;
  let names: string[];
  try {
    names = readdirSync(directory.ref || '/', { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith('.') || SKIPPED.has(name)) continue;
    let child: DirectoryHandle;
    try {
      child = directory.openChild(name);
    } catch {
      continue; // vanished, or swapped for a link
    }
    if (hasGitEntry(child)) {
      found.push(child);
      if (found.length > 1) return;
      continue;
    }
    try {
      search(child, depth + 1, found);
    } finally {
      child.close();
    }
    if (found.length > 1) return;
  }
}

/** Whether the directory has a `.git` entry (directory, file or link; never followed). */
export function hasGitEntry(directory: DirectoryHandle): boolean {
  try {
    lstatSync(directory.child('.git'));
    return true;
  } catch {
    return false;
  }
}
