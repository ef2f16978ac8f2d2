import { z } from 'zod';
import { MAX_RUNTIME_SNAPSHOT_NAME_LENGTH } from '../wire/runtime-api-routes.js';

/** A snapshot id: 32 lowercase hex digits (ours; the Runtime API of OpenHands has no snapshots). */
export const runtimeSnapshotIdSchema = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'must be a snapshot id: 32 lowercase hex digits');

/** A snapshot name: 1 to {@link MAX_RUNTIME_SNAPSHOT_NAME_LENGTH} characters, no control character. */
export const runtimeSnapshotNameSchema = z
  .string()
  .min(1)
  .max(MAX_RUNTIME_SNAPSHOT_NAME_LENGTH)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'must not contain control characters');

/**
 * Body of `POST /snapshots` (ours): the session to snapshot by its `runtime_id`, and a name
 * (default its session id). Unknown fields are refused with a 422 naming them.
 */
export const takeRuntimeSnapshotRequestWireSchema = z.strictObject({
  runtime_id: z.string().min(1).max(128),
  name: runtimeSnapshotNameSchema.optional(),
});

/** Wire JSON of `POST /snapshots`. */
export type TakeRuntimeSnapshotRequestWire = z.infer<typeof takeRuntimeSnapshotRequestWireSchema>;

/**
 * A snapshot of a session's filesystem, as `POST /snapshots` and `GET /snapshots` answer it
 * (ours). Lenient: unknown fields are kept.
 */
export const runtimeSnapshotWireSchema = z.looseObject({
  snapshot_id: runtimeSnapshotIdSchema,
  /** The session it was taken of. */
  session_id: z.string().min(1),
  /** The session's image: a `/start` with `from_snapshot` must name this `image`. */
  image: z.string().min(1),
  name: z.string(),
  /** ISO 8601 time it was taken. */
  created_at: z.string(),
  /** Size of the snapshot as the engine reports it (layers shared with `image` included). */
  size_bytes: z.number().int().nonnegative(),
});

/** Wire JSON of a {@link RuntimeSnapshot}. */
export type RuntimeSnapshotWire = z.infer<typeof runtimeSnapshotWireSchema>;

/** `GET /snapshots`: the snapshots of the server's namespace, newest first. */
export const runtimeSnapshotListWireSchema = z.object({
  snapshots: z.array(runtimeSnapshotWireSchema),
});

/** Wire JSON of `GET /snapshots`. */
export type RuntimeSnapshotListWire = z.infer<typeof runtimeSnapshotListWireSchema>;

/** Answer of `DELETE /snapshots/{snapshot_id}`. */
export const runtimeSnapshotRemovedWireSchema = z.object({
  snapshot_id: z.string(),
  status: z.literal('removed'),
});

/** Wire JSON of the answer of `DELETE /snapshots/{snapshot_id}`. */
export type RuntimeSnapshotRemovedWire = z.infer<typeof runtimeSnapshotRemovedWireSchema>;

/**
 * A snapshot of a Runtime API session: its filesystem (working directory, git history,
 * installed packages) committed on the engine, without its processes or environment values. A
 * `/start` with `from_snapshot` starts a session from it.
 */
export interface RuntimeSnapshot {
  snapshotId: string;
  /** The session it was taken of. */
  sessionId: string;
  /** The session's image (what a start from it must name). */
  image: string;
  name: string;
  /** ISO 8601 time it was taken. */
  createdAt: string;
  sizeBytes: number;
}

/** Parses wire JSON into a {@link RuntimeSnapshot}. */
export function runtimeSnapshotFromWire(json: unknown): RuntimeSnapshot {
  const wire = runtimeSnapshotWireSchema.parse(json);
  return {
    snapshotId: wire.snapshot_id,
    sessionId: wire.session_id,
    image: wire.image,
    name: wire.name,
    createdAt: wire.created_at,
    sizeBytes: wire.size_bytes,
  };
}
