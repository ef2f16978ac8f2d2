import path from 'node:path';
import { findExecutable, SYSTEM_PATH } from '@agent-workspace/core/internal';

/**
 * The first of `candidates` that is an executable file: absolute paths as given, names looked up
 * on `PATH` and the system directories (as the plugin host checks binary requirements).
 */
export function resolveExecutable(candidates: readonly string[]): string | undefined {
  const searchPath = [process.env.PATH ?? '', SYSTEM_PATH].join(path.delimiter);
  for (const candidate of candidates) {
    const found = path.isAbsolute(candidate)
      ? findExecutable(path.basename(candidate), path.dirname(candidate))
      : findExecutable(candidate, searchPath);
    if (found !== undefined) return found;
  }
  return undefined;
}
