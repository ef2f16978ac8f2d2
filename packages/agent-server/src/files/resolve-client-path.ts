import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { HttpError } from '../app/http-error.js';

/** Options of {@link resolveClientPath}. */
export interface ResolveClientPathOptions {
  /** The path as the client sent it. */
  input: string;
  /** Query or body field it came from, named in errors. */
  field: string;
  /** Absolute working directory of the server. */
  workingDir: string;
  /** Reject paths that resolve outside `workingDir`, following symlinks. */
  confine: boolean;
}

/** Real path of `target`, or of its nearest existing ancestor joined with the rest. */
async function realpathOfNearest(target: string): Promise<string> {
  const missing: string[] = [];
  let current = target;
  for (;;) {
    try {
      return path.join(await realpath(current), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(current);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === current) return target;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Resolves a client path against the working directory. With `confine`, a path that resolves
 * (symlinks included, also for not-yet-existing files) outside the working directory is a 403
 * naming the field.
 */
export async function resolveClientPath(options: ResolveClientPathOptions): Promise<string> {
  const { input, field, workingDir, confine } = options;
  if (input.includes('\0')) throw new HttpError(400, `${field} must not contain NUL bytes`);
  const resolved = path.resolve(workingDir, input);
  if (!confine) return resolved;
  const [real, root] = await Promise.all([
    realpathOfNearest(resolved),
    realpathOfNearest(workingDir),
  ]);
  const relative = path.relative(root, real);
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative)))
    return resolved;
  throw new HttpError(403, `${field} is outside the working directory: ${input}`);
}
