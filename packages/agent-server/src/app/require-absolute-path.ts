import path from 'node:path';
import { HttpError } from './http-error.js';

/**
 * `input` when it is an absolute path; otherwise OpenHands' 400 `Path must be absolute`, the
 * answer of its file routes to a relative `path`.
 */
export function requireAbsolutePath(input: string): string {
  if (!path.isAbsolute(input)) throw new HttpError(400, 'Path must be absolute');
  return input;
}
