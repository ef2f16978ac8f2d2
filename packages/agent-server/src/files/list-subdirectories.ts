import {
  compareNames,
  normaliseDirectoryPath,
  type ScanDirectoryOptions,
  scanDirectory,
} from './scan-directory.js';

/** Options of {@link listSubdirectories}. */
export type ListSubdirectoriesOptions = ScanDirectoryOptions;

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
  const base = normaliseDirectoryPath(options.input);
  return scanDirectory(options, ({ entries, truncated }) => ({
    entries: entries
      .filter((dirent) => dirent.isDirectory())
      .map((dirent) => ({ name: dirent.name, path: `${base === '/' ? '' : base}/${dirent.name}` }))
      .sort((a, b) => compareNames(a.name, b.name)),
    truncated,
  }));
}
