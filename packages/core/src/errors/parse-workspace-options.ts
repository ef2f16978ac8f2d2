import type { z } from 'zod';
import { WorkspaceError } from './workspace-error.js';

/** Options of {@link parseWorkspaceOptions}. */
export interface ParseWorkspaceOptionsOptions {
  /** The workspace kind, named in the message and in `details.kind`. */
  kind: string;
}

/**
 * Validates the options of a workspace type with its zod `schema`. Failures are one
 * `INVALID_CONFIG` error naming each bad field (an unknown key by its own name), e.g.
 * `invalid docker workspace options: resources.memoryBytes: Too small`, with the field paths in
 * `details.fields`. Values are never echoed, so a bad secret is not printed.
 *
 * @example
 * ```ts
 * const options = parseWorkspaceOptions(z.strictObject({ image: z.string() }), { image: 'x' }, {
 *   kind: 'my-sandbox',
 * });
 * ```
 */
export function parseWorkspaceOptions<T extends z.ZodType>(
  schema: T,
  options: unknown,
  { kind }: ParseWorkspaceOptionsOptions,
): z.output<T> {
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  const named = parsed.error.issues.map((issue) => {
    // An unknown key is reported on its parent; name the key itself.
    const paths =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => [...issue.path, key].join('.'))
        : [issue.path.join('.') || '(options)'];
    return { paths, message: issue.message };
  });
  const fields = named.flatMap(({ paths }) => paths);
  const issues = named.map(({ paths, message }) => `${paths.join(', ')}: ${message}`).join('; ');
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `invalid ${kind} workspace options: ${issues}`,
    cause: parsed.error,
    details: { kind, fields },
  });
}
