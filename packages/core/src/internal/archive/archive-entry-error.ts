import { WorkspaceError } from '../../errors/workspace-error.js';

/** Why an archive or one of its entries was refused; `details.reason` of an archive error. */
export type ArchiveProblem =
  | 'absolute'
  | 'dot-dot'
  | 'empty-name'
  | 'nul-byte'
  | 'name-too-long'
  | 'path-too-long'
  | 'too-deep'
  | 'hard-link'
  | 'special-file'
  | 'replaces-special-file'
  | 'sparse'
  | 'unknown-type'
  | 'through-symlink'
  | 'not-directory'
  | 'is-directory'
  | 'too-many-entries'
  | 'too-large'
  | 'malformed';

/** Longest entry name quoted in a message. */
const QUOTED_NAME_CHARS = 200;

/**
 * An `INVALID_ARGUMENT` `WorkspaceError` about an archive entry: the message is
 * `archive entry "<name>" <problem>`, `details` carry `field` (`body`), `entry` and `reason`.
 * Without an entry (a malformed stream) the message is `archive <problem>`.
 */
export function archiveEntryError(
  entry: string | undefined,
  problem: string,
  reason: ArchiveProblem,
  cause?: unknown,
): WorkspaceError {
  const quoted =
    entry === undefined
      ? 'archive'
      : `archive entry ${JSON.stringify(entry.length > QUOTED_NAME_CHARS ? `${entry.slice(0, QUOTED_NAME_CHARS)}...` : entry)}`;
  return new WorkspaceError({
    code: 'INVALID_ARGUMENT',
    message: `${quoted} ${problem}`,
    cause,
    details: { field: 'body', entry, reason },
  });
}

/** The {@link ArchiveProblem} of an archive error, or `undefined` for any other error. */
export function archiveProblemOf(error: unknown): ArchiveProblem | undefined {
  if (!WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')) return undefined;
  const { field, reason } = error.details;
  return field === 'body' && typeof reason === 'string' ? (reason as ArchiveProblem) : undefined;
}
