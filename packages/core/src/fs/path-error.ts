import { WorkspaceError, type WorkspaceErrorCode } from '../errors/workspace-error.js';

/** The path a client named and the field it came in. */
export interface PathSubject {
  /** The path as the client sent it. */
  input: string;
  /** Query or body field, named in errors. */
  field: string;
}

/** Why a path was refused; `details.reason` of a path error. */
export type PathErrorReason =
  | 'outside'
  | 'permission'
  | 'not-found'
  | 'parent-not-directory'
  | 'symlink-loop'
  | 'name-too-long'
  | 'nul-byte'
  | 'is-directory'
  | 'not-directory'
  | 'not-regular-file'
  | 'hard-link';

/**
 * A `WorkspaceError` about a client path: the message is `<field> <problem>: <input>`, `details`
 * carry `field`, `path` (the input) and `reason`.
 */
export function pathError(
  code: WorkspaceErrorCode,
  subject: PathSubject,
  problem: string,
  reason: PathErrorReason,
  cause?: unknown,
): WorkspaceError {
  return new WorkspaceError({
    code,
    message: `${subject.field} ${problem}: ${subject.input}`,
    cause,
    details: { field: subject.field, path: subject.input, reason },
  });
}

/** The `code` of a Node system error (`'ENOENT'`, ...), or `undefined`. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A file-system error met while walking or opening a client path, as a path error: `ENOENT` is
 * `NOT_FOUND`, `EACCES`/`EPERM` `FORBIDDEN`, `ENAMETOOLONG`/`ELOOP`/`ENOTDIR`/`ENXIO`
 * (a socket) `INVALID_ARGUMENT`. Anything else (`EMFILE`, `EIO`, ...) is returned unchanged.
 */
export function translateWalkError(error: unknown, subject: PathSubject): unknown {
  switch (errnoOf(error)) {
    case 'ENOENT':
      return pathError('NOT_FOUND', subject, 'does not exist', 'not-found', error);
    case 'EACCES':
    case 'EPERM':
      return pathError(
        'FORBIDDEN',
        subject,
        'is not accessible (permission denied)',
        'permission',
        error,
      );
    case 'ENAMETOOLONG':
      return pathError(
        'INVALID_ARGUMENT',
        subject,
        'has a name that is too long',
        'name-too-long',
        error,
      );
    case 'ELOOP':
      return pathError(
        'INVALID_ARGUMENT',
        subject,
        'has too many levels of symbolic links',
        'symlink-loop',
        error,
      );
    case 'ENXIO':
      return pathError(
        'INVALID_ARGUMENT',
        subject,
        'is not a regular file',
        'not-regular-file',
        error,
      );
    case 'ENOTDIR':
      return pathError(
        'INVALID_ARGUMENT',
        subject,
        'has a parent that is not a directory',
        'parent-not-directory',
        error,
      );
    default:
      return error;
  }
}
