import { statSync } from 'node:fs';
import { WorkspaceError } from '../errors/workspace-error.js';

/**
 * Throws `INVALID_CWD` unless `cwd` is an existing directory. Synchronous on purpose: one local
 * stat costs microseconds, while a thread-pool round trip would add latency to every command.
 */
export function assertDirectory(cwd: string): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new WorkspaceError({
      code: 'INVALID_CWD',
      message:
        code === 'ENOENT' || code === 'ENOTDIR'
          ? `cwd does not exist: ${cwd}`
          : `cwd is not accessible: ${cwd} (${code ?? errorMessage(error)})`,
      cause: error,
      details: { path: cwd },
    });
  }
  if (!isDirectory) {
    throw new WorkspaceError({
      code: 'INVALID_CWD',
      message: `cwd is not a directory: ${cwd}`,
      details: { path: cwd },
    });
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
