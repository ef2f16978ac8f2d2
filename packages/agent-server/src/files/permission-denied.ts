import { HttpError } from '../app/http-error.js';

/**
 * Turns a file-system `EACCES` / `EPERM` into a 403 `Permission denied: <path>` (OpenHands'
 * wording); any other error is returned unchanged.
 */
export function permissionDenied(error: unknown, target: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM'
    ? new HttpError(403, `Permission denied: ${target}`)
    : error;
}
