import { type Dirent, lstatSync } from 'node:fs';
import type { PathWalker } from '@agent-workspace/core/internal';
import {
  clientPathSchema,
  DEFAULT_DIRECTORY_LISTING_PAGE_LIMIT,
  DIRECTORY_LISTING_ROUTE,
  type DirectoryEntryType,
  type DirectoryEntryWire,
  type DirectoryListingPageWire,
  directoryListingPageWireSchema,
  MAX_DIRECTORY_LISTING_PAGE_ID_CHARS,
  MAX_DIRECTORY_LISTING_PAGE_LIMIT,
  MAX_DIRECTORY_LISTING_SCANNED_ENTRIES,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAbsolutePath } from '../app/require-absolute-path.js';
import type { ServerContext } from '../app/server-context.js';
import { compareNames, normaliseDirectoryPath, scanDirectory } from '../files/scan-directory.js';
import { directoryHttpError } from './directory-http-error.js';

/** A page id: `d/` (directories) or `e/` (every other entry) and the name to resume at. */
const PAGE_ID_PATTERN = /^[de]\/[^/\0]+$/;

const listDirectoryQuery = z.object({
  path: clientPathSchema.describe('Absolute path of the directory to list'),
  page_id: z
    .string()
    .max(MAX_DIRECTORY_LISTING_PAGE_ID_CHARS)
    .regex(PAGE_ID_PATTERN, 'page_id must be a next_page_id of this route')
    .optional()
    .describe('Optional next_page_id from the previously returned page'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_DIRECTORY_LISTING_PAGE_LIMIT)
    .default(DEFAULT_DIRECTORY_LISTING_PAGE_LIMIT)
    .describe('The max number of entries in the page'),
  include_hidden: z
    .stringbool()
    .default(false)
    .describe("Include hidden entries (names starting with '.')"),
});

/** Options of {@link listDirectoryPage}. */
export interface ListDirectoryPageOptions {
  /** The server's path walker (race-free, confined when the server is). */
  paths: PathWalker;
  /** Absolute path of the directory, as the client sent it. */
  input: string;
  /** List names starting with `.` too. */
  includeHidden: boolean;
  /** `next_page_id` of the previous page, if any. */
  pageId: string | undefined;
  /** Most entries in the page. */
  limit: number;
  /** Most directory entries read; the listing stops there. */
  maxScanned: number;
}

/** An entry as read: its name and its own type (never a link's target's). */
interface ScannedEntry {
  name: string;
  type: DirectoryEntryType;
}

/**
 * One page of the entries of the directory `input`, opened through the server's path walker
 * (the same race-free, confined open as `search_subdirs`: a link on the way is followed only
 * within the confinement, and the directory read is the directory checked) and read from that
 * open descriptor. Each entry is judged by its own type, so a symbolic link is `symlink` and is
 * never followed; sizes come from `lstat` through the open directory. Directories first, then by
 * lowercased name, then by name.
 *
 * @throws WorkspaceError path errors of `openDirectory` (`not-found`, `not-directory`,
 * `outside`, `permission`, ...); the directory's read errors (`EACCES`) as they are.
 */
export function listDirectoryPage(options: ListDirectoryPageOptions): DirectoryListingPageWire {
  return scanDirectory({ ...options, field: 'path' }, (scan, childPath) => {
    const entries: ScannedEntry[] = scan.entries.map((dirent) => ({
      name: dirent.name,
      type: typeOf(dirent),
    }));
    entries.sort(compareEntries);
    const resume = options.pageId ? parsePageId(options.pageId) : undefined;
    const start = resume ? entries.findIndex((entry) => compareEntries(entry, resume) >= 0) : 0;
    const from = start === -1 ? entries.length : start;
    const items: DirectoryEntryWire[] = [];
    for (const entry of entries.slice(from, from + options.limit)) {
      const item = describeEntry(childPath(entry.name), entry);
      if (item) items.push(item);
    }
    const next = entries[from + options.limit];
    return {
      path: normaliseDirectoryPath(options.input),
      items,
      next_page_id: next ? pageIdOf(next) : null,
      truncated: scan.truncated,
    };
  });
}

/**
 * Registers our `GET /api/workspace/list_directory` (announced as `DIRECTORY_LISTING_CAPABILITY`):
 * a page of a directory's entries (`name`, `type`, `size`), directories first. The path is
 * resolved like every file route (confined: 403 outside; 404 `Directory not found`; 400 `Path is
 * not a directory`); at most `MAX_DIRECTORY_LISTING_SCANNED_ENTRIES` entries are read per request.
 */
export function registerDirectoryListingRoutes(
  scope: FastifyInstance,
  context: ServerContext,
): void {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    DIRECTORY_LISTING_ROUTE,
    {
      schema: {
        tags: ['Workspace'],
        description: `A page of the entries of a directory, directories first, links reported as such and never followed. At most ${MAX_DIRECTORY_LISTING_SCANNED_ENTRIES} entries are read; a listing cut there says truncated: true.`,
        querystring: listDirectoryQuery,
        response: { 200: directoryListingPageWireSchema },
      },
    },
    async (request) => {
      context.touch();
      const input = requireAbsolutePath(request.query.path);
      try {
        return listDirectoryPage({
          paths: context.paths,
          input,
          includeHidden: request.query.include_hidden,
          pageId: request.query.page_id,
          limit: request.query.limit,
          maxScanned: MAX_DIRECTORY_LISTING_SCANNED_ENTRIES,
        });
      } catch (error) {
        throw directoryHttpError(error, input);
      }
    },
  );
}

function typeOf(dirent: Dirent): DirectoryEntryType {
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isFile()) return 'file';
  return 'other';
}

/**
 * The entry as `lstat` sees it now through the open directory (a link is not followed); `null`
 * when it went away after the directory was read.
 */
function describeEntry(target: string, entry: ScannedEntry): DirectoryEntryWire | null {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    // Unreadable metadata: the entry is still listed, by its directory type, without a size.
    return { name: entry.name, type: entry.type, size: null };
  }
  const type: DirectoryEntryType = stats.isSymbolicLink()
    ? 'symlink'
    : stats.isDirectory()
      ? 'directory'
      : stats.isFile()
        ? 'file'
        : 'other';
  return { name: entry.name, type, size: type === 'file' ? stats.size : null };
}

/** Directories before everything else, then by lowercased name, ties by the names themselves. */
function compareEntries(a: ScannedEntry, b: ScannedEntry): number {
  const groupA = a.type === 'directory' ? 0 : 1;
  const groupB = b.type === 'directory' ? 0 : 1;
  if (groupA !== groupB) return groupA - groupB;
  return compareNames(a.name, b.name);
}

function pageIdOf(entry: ScannedEntry): string {
  return `${entry.type === 'directory' ? 'd' : 'e'}/${entry.name}`;
}

/** The sort position a page id stands for (a directory, or any other entry, of that name). */
function parsePageId(pageId: string): ScannedEntry {
  return { type: pageId.startsWith('d/') ? 'directory' : 'file', name: pageId.slice(2) };
}
