import { stat } from 'node:fs/promises';
import path from 'node:path';
import { invalidArgument } from '../errors/invalid-argument.js';

/**
 * The normalised absolute `value`.
 * @throws WorkspaceError `INVALID_ARGUMENT` naming `field` unless it exists (and, with
 * `directory`, is a directory).
 */
export async function existingPath(
  value: unknown,
  field: string,
  directory = false,
): Promise<string> {
  if (typeof value !== 'string' || !path.posix.isAbsolute(value)) {
    throw invalidArgument(field, `must be an absolute path, got ${JSON.stringify(value)}`);
  }
  const stats = await stat(value).catch((error: NodeJS.ErrnoException) => error);
  if (stats instanceof Error) {
    const reason = stats.code === 'ENOENT' ? 'does not exist' : `is not accessible (${stats.code})`;
    throw invalidArgument(field, `${reason}: ${value}`);
  }
  if (directory && !stats.isDirectory())
    throw invalidArgument(field, `is not a directory: ${value}`);
  return path.posix.resolve(value);
}

/** {@link existingPath} of each of `values`, naming `field[i]`; `[]` for none. */
export async function existingPaths(
  values: readonly string[] | undefined,
  field: string,
): Promise<string[]> {
  if (values === undefined) return [];
  if (!Array.isArray(values)) throw invalidArgument(field, 'must be an array of absolute paths');
  return Promise.all(values.map((value, index) => existingPath(value, `${field}[${index}]`)));
}
