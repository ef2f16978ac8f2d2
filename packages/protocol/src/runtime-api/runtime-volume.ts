import { z } from 'zod';

/** Most `volumes` of one `POST /start`. */
export const MAX_RUNTIME_VOLUMES = 16;

/** Longest bind `source` and volume `target`, in characters. */
export const MAX_RUNTIME_VOLUME_PATH_LENGTH = 4096;

/** Longest named volume `name`, in characters. */
export const MAX_RUNTIME_VOLUME_NAME_LENGTH = 64;

/**
 * Directories a volume `target` may neither be, nor lie inside, nor contain: the agent-server's
 * own code and the kernel filesystems its command sandbox relies on. (`/` contains them all.)
 */
export const RUNTIME_VOLUME_RESERVED_TARGETS = Object.freeze([
  '/opt/agent-server',
  '/proc',
  '/sys',
  '/dev',
]);

/** True when `a` is `b` or one of its ancestors (both normalised absolute POSIX paths). */
export function isSameOrAncestorPath(a: string, b: string): boolean {
  return a === b || a === '/' || b.startsWith(`${a}/`);
}

/**
 * A mount target: an absolute, normalised POSIX path (no `.`, `..`, `//` or trailing `/`), without
 * NUL, that is not `/` and keeps clear of {@link RUNTIME_VOLUME_RESERVED_TARGETS}.
 */
const targetSchema = z
  .string()
  .min(1)
  .max(MAX_RUNTIME_VOLUME_PATH_LENGTH)
  .superRefine((target, context) => {
    const fail = (message: string) => context.addIssue({ code: 'custom', message });
    if (target.includes('\0')) return fail('must not contain NUL');
    if (!target.startsWith('/')) return fail('must be an absolute path (start with /)');
    if (target === '/') return fail('must not be / (it would hide the whole image)');
    const segments = target.slice(1).split('/');
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
      return fail('must be normalised: no empty, . or .. segment, no trailing /');
    }
    const reserved = RUNTIME_VOLUME_RESERVED_TARGETS.find(
      (dir) => isSameOrAncestorPath(target, dir) || isSameOrAncestorPath(dir, target),
    );
    if (reserved) return fail(`must keep clear of ${reserved} (the agent-server needs it)`);
  });

/** A bind `source`: an absolute POSIX path without NUL (the server allows only some, exactly). */
const sourceSchema = z
  .string()
  .min(1)
  .max(MAX_RUNTIME_VOLUME_PATH_LENGTH)
  .refine((source) => source.startsWith('/'), 'must be an absolute path (start with /)')
  .refine((source) => !source.includes('\0'), 'must not contain NUL');

/** A named volume's `name`: Docker's volume-name grammar, at most 64 characters. */
export const runtimeVolumeNameSchema = z
  .string()
  .min(1)
  .max(MAX_RUNTIME_VOLUME_NAME_LENGTH)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
    'must start with a letter or digit and hold only letters, digits, _, . and -',
  );

/**
 * One entry of `POST /start` `volumes` (ours; OpenHands clients never send it):
 *
 * - `bind`: the host directory `source` — exactly one of the directories the server's operator
 *   allows (`allowedBindSources`), never a path below one — mounted at `target`.
 * - `volume`: the named volume `name` of the server's namespace (created on first use, shared by
 *   every session of the namespace naming it, kept when sessions stop) mounted at `target`.
 *
 * `read_only` mounts it read-only (default false).
 */
export const runtimeVolumeWireSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('bind'),
    source: sourceSchema,
    target: targetSchema,
    read_only: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal('volume'),
    name: runtimeVolumeNameSchema,
    target: targetSchema,
    read_only: z.boolean().optional(),
  }),
]);

/** Wire JSON of one `POST /start` volume. */
export type RuntimeVolumeWire = z.infer<typeof runtimeVolumeWireSchema>;

/**
 * `POST /start` `volumes`: at most {@link MAX_RUNTIME_VOLUMES}, no target equal to, inside or
 * above another's — a mount inside another would have its mount point made in that one (in an
 * operator's host directory, for a bind), and one above another would hide it.
 */
export const runtimeVolumesWireSchema = z
  .array(runtimeVolumeWireSchema)
  .max(MAX_RUNTIME_VOLUMES)
  .superRefine((volumes, context) => {
    volumes.forEach(({ target }, index) => {
      const clash = volumes
        .slice(0, index)
        .find(
          (earlier) =>
            isSameOrAncestorPath(earlier.target, target) ||
            isSameOrAncestorPath(target, earlier.target),
        );
      if (clash) {
        context.addIssue({
          code: 'custom',
          path: [index, 'target'],
          message: `must be neither the same as, nor inside, nor above another volume's target (${clash.target})`,
        });
      }
    });
  });
