import { findExecutable } from './find-executable.js';

let cachedBashPath: string | undefined;

/**
 * Absolute path of `bash` on this process's `PATH`, looked up once, so a command's own `PATH`
 * override cannot make the shell itself unfindable. Falls back to plain `bash`.
 */
export function bashPath(): string {
  cachedBashPath ??= findExecutable('bash', process.env.PATH ?? '') ?? 'bash';
  return cachedBashPath;
}
