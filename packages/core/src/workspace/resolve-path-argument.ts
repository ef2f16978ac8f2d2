import path from 'node:path';
import { invalidArgument } from '../errors/invalid-argument.js';

/**
 * Resolves a workspace-side path against `workingDir` (POSIX). `INVALID_ARGUMENT` naming
 * `field` when `target` is empty, not a string or contains NUL bytes.
 */
export function resolveWorkspacePath(workingDir: string, target: string, field: string): string {
  checkPathArgument(target, field);
  return path.posix.resolve(workingDir, target);
}

/** Resolves a path on the caller's machine against the process's current directory. */
export function resolveCallerPath(target: string, field: string): string {
  checkPathArgument(target, field);
  return path.resolve(target);
}

function checkPathArgument(target: string, field: string): void {
  if (typeof target !== 'string' || target.length === 0) {
    throw invalidArgument(field, 'must be a non-empty string');
  }
  if (target.includes('\0')) throw invalidArgument(field, 'must not contain NUL bytes');
}
