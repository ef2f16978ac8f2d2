import path from 'node:path';
import type { FileOperationResult, WorkspaceArchiveFormat } from '@agent-workspace/protocol';
import {
  MAX_WORKSPACE_ARCHIVE_BASE_REF_LENGTH,
  MAX_WORKSPACE_ARCHIVE_EXCLUDE_LENGTH,
  MAX_WORKSPACE_ARCHIVE_EXCLUDES,
  WORKSPACE_ARCHIVE_FORMATS,
} from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';

/** Options of `RemoteWorkspace.archive`: OpenHands' `GET /api/file/archive` parameters. */
export interface WorkspaceArchiveOptions {
  /** `git-delta` (default): a git patch of the working tree; `tar.gz`: the whole directory. */
  format?: WorkspaceArchiveFormat | undefined;
  /** git-delta only: the base to diff against (default: the server's auto-detected base). */
  baseRef?: string | undefined;
  /** Apply the server's default excludes (node_modules/, virtualenvs, caches, builds); default true. */
  useDefaultExcludes?: boolean | undefined;
  /** Further exclude globs. */
  exclude?: readonly string[] | undefined;
}

/** What `RemoteWorkspace.archive` wrote. */
export interface WorkspaceArchiveResult extends FileOperationResult {
  /** git-delta: the full id of the commit the patch applies to (absent for the empty tree). */
  baseCommit?: string | undefined;
}

/**
 * Checks archive options against the protocol's limits (`MAX_WORKSPACE_ARCHIVE_*`).
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` naming `format`, `baseRef` or `exclude`.
 */
export function checkWorkspaceArchiveOptions(options: WorkspaceArchiveOptions): void {
  const { format, baseRef, exclude } = options;
  if (format !== undefined && !WORKSPACE_ARCHIVE_FORMATS.includes(format)) {
    throw invalidArgument('format', `must be one of ${WORKSPACE_ARCHIVE_FORMATS.join(', ')}`);
  }
  if (baseRef !== undefined) {
    if (baseRef === '' || baseRef.startsWith('-')) {
      throw invalidArgument('baseRef', 'must be non-empty and must not start with "-"');
    }
    if (baseRef.length > MAX_WORKSPACE_ARCHIVE_BASE_REF_LENGTH) {
      throw invalidArgument(
        'baseRef',
        `must be at most ${MAX_WORKSPACE_ARCHIVE_BASE_REF_LENGTH} characters`,
      );
    }
  }
  if (exclude !== undefined) {
    if (exclude.length > MAX_WORKSPACE_ARCHIVE_EXCLUDES) {
      throw invalidArgument('exclude', `must hold at most ${MAX_WORKSPACE_ARCHIVE_EXCLUDES} globs`);
    }
    if (exclude.some((glob) => glob.length > MAX_WORKSPACE_ARCHIVE_EXCLUDE_LENGTH)) {
      throw invalidArgument(
        'exclude',
        `globs must be at most ${MAX_WORKSPACE_ARCHIVE_EXCLUDE_LENGTH} characters`,
      );
    }
  }
}

/**
 * The local file an archive is written to, resolved against the current directory.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` (field `destinationPath`) for an empty path or a NUL.
 */
export function resolveArchiveDestination(destinationPath: string): string {
  if (typeof destinationPath !== 'string' || destinationPath.length === 0) {
    throw invalidArgument('destinationPath', 'must be a non-empty string');
  }
  if (destinationPath.includes('\0')) {
    throw invalidArgument('destinationPath', 'must not contain NUL bytes');
  }
  return path.resolve(destinationPath);
}
