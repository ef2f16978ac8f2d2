import { opendirSync } from 'node:fs';
import { openDirectory, type PathWalker } from '@agent-workspace/core/internal';

/** Options of {@link listSubdirectories}. */
export interface ListSubdirectoriesOptions {
  /** The server's path walker (race-free, confined when the server is). */
  paths: PathWalker;
  /** Absolute path of the directory, as the client sent it. */
  input: string;
  /** Query field `input` came in, named in errors. */
  field: string;
  /** List names starting with `.` too. */
  includeHidden: boolean;
  /** Most directory entries read; the listing stops there. */
  maxScanned: number;
}

/** The subdirectories found, sorted case-insensitively. */
export interface SubdirectoryListing {
  /** Names and absolute paths (`input`, normalised, joined with the name). */
  entries: { name: string; path: string }[];
  /** The listing stopped at `maxScanned` entries. */
  truncated: boolean;
}

/**
 * The immediate subdirectories of the directory `input`, opened through the server's path walker
 * (a link on the way is followed only within the confinement) and read from that open directory:
 * entries are judged by their own type, so links (even to directories), files and the rest are
 * skipped, and hidden names unless `includeHidden`. Sorted by lowercased name, then by name.
 *
 * @throws WorkspaceError path errors of `openDirectory` (`not-found`, `not-directory`,
 * `outside`, `permission`, ...); the directory's read errors (`EACCES`) as they are.
 */
export function listSubdirectories(options: ListSubdirectoriesOptions): SubdirectoryListing {
  const directory = openDirectory(options.paths, options.input, options.field);
  const base = normaliseDirectoryPath(options.input);
  const entries: SubdirectoryListing['entries'] = [];
  let scanned = 0;
  let truncated = false;
  try {
    const listing = opendirSync(directory.ref || '/');
    try {
      for (let dirent = listing.readSync(); dirent; dirent = listing.readSync()) {
        if (scanned >= options.maxScanned) {
          truncated = true;
          break;
        }
        scanned += 1;
        if (!options.includeHidden && dirent.name.startsWith('.')) continue;
        if (!dirent.isDirectory()) continue;
        entries.push({ name: dirent.name, path: `${base === '/' ? '' : base}/${dirent.name}` });
      }
    } finally {
      listing.closeSync();
    }
  } finally {
    directory.close();
  }
  entries.sort((a, b) => compareNames(a.name, b.name));
  return { entries, truncated };
}

/** Orders names by their lowercased form (OpenHands' order), ties by the names themselves. */
function compareNames(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  if (left !== right) return left < right ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `input` as Python's `Path` prints it: repeated slashes, `.` parts and a trailing slash gone. */
function normaliseDirectoryPath(input: string): string {
  const parts = input.split('/').filter((part) => part !== '' && part !== '.');
  return `/${parts.join('/')}`;
}
