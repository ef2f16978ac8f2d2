import { z } from 'zod';
import { commandEnvironmentSchema } from '../limits/command-input-schemas.js';
import { MAX_ALLOW_HOST_LENGTH, MAX_ALLOW_HOSTS } from '../limits/egress-limits.js';
import { RUNTIME_RESOURCE_FACTORS } from '../wire/runtime-api-routes.js';
import { runtimeSessionIdSchema } from './runtime-session.js';
import { runtimeSnapshotIdSchema } from './runtime-snapshot.js';
import { runtimeVolumesWireSchema } from './runtime-volume.js';

/** Longest `image` reference, in characters. */
const MAX_IMAGE_LENGTH = 512;

/** Longest `working_dir`, in characters. */
const MAX_WORKING_DIR_LENGTH = 4096;

/**
 * Body of `POST /start`, as the OpenHands `APIRemoteWorkspace` sends it. Unknown fields are
 * refused with a 422 naming them. `command`, `run_as_user`, `fs_group` and `runtime_class` are
 * accepted for compatibility; what a server does with them is its own (ours: see the
 * remote-api README).
 */
export const startRuntimeRequestWireSchema = z.strictObject({
  /** The agent-server image; a server may allow only some. */
  image: z.string().min(1).max(MAX_IMAGE_LENGTH),
  session_id: runtimeSessionIdSchema,
  /** The command starting the agent-server (OpenHands images need one). */
  command: z.union([z.string().max(4096), z.array(z.string().max(4096)).max(64)]).nullish(),
  /** Working directory of the agent-server process: an absolute path, without NUL. */
  working_dir: z
    .string()
    .max(MAX_WORKING_DIR_LENGTH)
    .refine((dir) => dir.startsWith('/'), 'must be an absolute path (start with /)')
    .refine((dir) => !dir.includes('\0'), 'must not contain NUL')
    .optional(),
  /** Environment of the sandbox, within the command-environment limits. */
  environment: commandEnvironmentSchema.optional(),
  run_as_user: z.number().int().min(0).max(2_147_483_647).nullish(),
  fs_group: z.number().int().min(0).max(2_147_483_647).nullish(),
  image_pull_policy: z.enum(['Always', 'IfNotPresent', 'Never']).optional(),
  runtime_class: z.string().min(1).max(253).nullish(),
  /**
   * Ours: the session's egress allow-list (`host` or `host:port`, at most 256): the agent's
   * commands, kernel and browser reach only these hosts, through the agent-server's proxy. On a
   * server started with its own allow-list, each entry must be covered by it (the session can
   * narrow the operator's list, never widen it); absent, the operator's list applies.
   */
  allow_hosts: z
    .array(z.string().min(1).max(MAX_ALLOW_HOST_LENGTH))
    .max(MAX_ALLOW_HOSTS)
    .optional(),
  /**
   * Ours: bind mounts of directories the server's operator allows, and named volumes of the
   * server's namespace shared between its sessions (see `runtimeVolumeWireSchema`).
   */
  volumes: runtimeVolumesWireSchema.optional(),
  resource_factor: z
    .number()
    .refine(
      (factor) => (RUNTIME_RESOURCE_FACTORS as readonly number[]).includes(factor),
      `must be one of ${RUNTIME_RESOURCE_FACTORS.join(', ')}`,
    )
    .optional(),
  /**
   * Ours: start the session from this snapshot's filesystem (`POST /snapshots`); `image` must be
   * the snapshot's `image`. Never served from a warm pool.
   */
  from_snapshot: runtimeSnapshotIdSchema.optional(),
});

/** Wire JSON of `POST /start`. */
export type StartRuntimeRequestWire = z.infer<typeof startRuntimeRequestWireSchema>;

/** Body of `POST /pause`, `/resume` and `/stop`. */
export const runtimeIdRequestWireSchema = z.strictObject({
  runtime_id: z.string().min(1).max(128),
});

/** Wire JSON of `POST /pause`, `/resume` and `/stop`. */
export type RuntimeIdRequestWire = z.infer<typeof runtimeIdRequestWireSchema>;

/** Answer of `POST /stop`: the session no longer runs (also when it was already gone). */
export const runtimeStoppedWireSchema = z.object({
  runtime_id: z.string(),
  status: z.literal('stopped'),
});

/** Wire JSON of the answer of `POST /stop`. */
export type RuntimeStoppedWire = z.infer<typeof runtimeStoppedWireSchema>;
