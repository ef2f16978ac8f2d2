import { type Dirent, opendirSync } from 'node:fs';
import { openDirectory, type PathWalker } from '@agent-workspace/core/internal';

/** Options of {@link scanDirectory}. */
export interface ScanDirectoryOptions {
  /** The server's path walker (race-free, confined when the server is). */
  paths: PathWalker;
  /** Absolute path of the directory, as the client sent it. */
  input: string;
  /** Query field `input` came in, named in errors. */
  field: string;
  /** Keep names starting with `.` too. */
  includeHidden: boolean;
  /** Most directory entries read; the scan stops there. */
  maxScanned: number;
}

/** What {@link scanDirectory} read: the entries, unsorted, and whether it stopped at its bound. */
export interface DirectoryScan {
  entries: Dirent[];
  /** The scan stopped at `maxScanned` entries. */
  truncated: boolean;
}

/**
 * Opens the directory `input` through the server's path walker (a link on the way is followed
 * only within the confinement; the directory read is the directory checked), reads at most
 * `maxScanned` of its entries from that open directory (each with its own type, never a link's
 * target's), then calls `use` with them and a function naming an entry's path through the open
 * directory (for a later `lstat`), and closes the directory.
 *
 * @throws WorkspaceError path errors of `openDirectory` (`not-found`, `not-directory`,
 * `outside`, `permission`, ...); the directory's read errors (`EACCES`) as they are.
 */
export function scanDirectory<T>(
  options: ScanDirectoryOptions,
  use: (scan: DirectoryScan, childPath: (name: string) => string) => T,
): T {
  const directory = openDirectory(options.paths, options.input, options.field);
  try {
    const entries: Dirent[] = [];
    let truncated = false;
    const listing = opendirSync(directory.ref || '/');
    try {
      let scanned = 0;
      for (let dirent = listing.readSync(); dirent; dirent = listing.readSync()) {
        if (scanned >= options.maxScanned) {
          truncated = true;
          break;
        }
        scanned += 1;
        if (options.includeHidden || !dirent.name.startsWith('.')) entries.push(dirent);
      }
    } finally {
      listing.closeSync();
    }
    return use({ entries, truncated }, (name) => directory.child(name));
  } finally {
    directory.close();
  }
}

/** Orders names by their lowercased form (OpenHands' order), ties by the names themselves. */
export function compareNames(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  if (left !== right) return left < right ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `input` as Python's `Path` prints it: repeated slashes, `.` parts and a trailing slash gone. */
export function normaliseDirectoryPath(input: string): string {
  const parts = input.split('/').filter((part) => part !== '' && part !== '.');
  return `/${parts.join('/')}`;
}
