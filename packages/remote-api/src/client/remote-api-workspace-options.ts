import path from 'node:path';
import {
  commandEnvironmentSchema,
  RUNTIME_RESOURCE_FACTORS,
  type RuntimeVolumeWire,
  runtimeSessionIdSchema,
  runtimeSnapshotIdSchema,
  runtimeVolumesWireSchema,
  type StartRuntimeRequestWire,
  startRuntimeRequestWireSchema,
} from '@agent-workspace/protocol';
import { z } from 'zod';
import { runtimeApiBaseUrl } from './runtime-api-base-url.js';

const positiveMs = z.number().positive().finite();

/**
 * `volumes`: the wire's entries in camelCase (`readOnly`), checked by the protocol's own schema
 * (`runtimeVolumesWireSchema`), so a bad one fails here, naming the field, before any request.
 */
const volumesSchema = z
  .array(
    z.discriminatedUnion('type', [
      z.strictObject({
        type: z.literal('bind'),
        source: z.string(),
        target: z.string(),
        readOnly: z.boolean().optional(),
      }),
      z.strictObject({
        type: z.literal('volume'),
        name: z.string(),
        target: z.string(),
        readOnly: z.boolean().optional(),
      }),
    ]),
  )
  .superRefine((volumes, context) => {
    const parsed = runtimeVolumesWireSchema.safeParse(volumesToWire(volumes));
    for (const issue of parsed.error?.issues ?? []) {
      const path = issue.path.map((key) => (key === 'read_only' ? 'readOnly' : key));
      context.addIssue({ code: 'custom', path, message: issue.message });
    }
  });

/** A mount of the sandbox, as {@link RemoteAPIWorkspaceOptions.volumes} lists it. */
export type RemoteApiVolume =
  | { type: 'bind'; source: string; target: string; readOnly?: boolean | undefined }
  | { type: 'volume'; name: string; target: string; readOnly?: boolean | undefined };

/** The `POST /start` `volumes` of {@link RemoteAPIWorkspaceOptions.volumes}. */
export function volumesToWire(volumes: readonly RemoteApiVolume[]): RuntimeVolumeWire[] {
  return volumes.map(({ readOnly, ...volume }) => ({
    ...volume,
    ...(readOnly !== undefined && { read_only: readOnly }),
  }));
}

/** The body of `POST /start` for the session `sessionId` of a workspace with `options`. */
export function startRequestBody(
  options: ResolvedRemoteAPIWorkspaceOptions,
  sessionId: string,
): StartRuntimeRequestWire {
  return {
    image: options.image,
    session_id: sessionId,
    working_dir: options.workingDir,
    environment: options.env ?? {},
    resource_factor: options.resourceFactor,
    ...(options.volumes?.length && { volumes: volumesToWire(options.volumes) }),
    ...(options.fromSnapshot !== undefined && { from_snapshot: options.fromSnapshot }),
  };
}

/** Every JSON-describable field of {@link RemoteAPIWorkspaceOptions}, with its default. */
export const remoteApiWorkspaceFields = {
  runtimeApiUrl: z.string().superRefine((value, context) => {
    const base = runtimeApiBaseUrl(value);
    if (typeof base === 'string') context.addIssue({ code: 'custom', message: base });
  }),
  runtimeApiKey: z
    .string()
    .regex(/^[\x21-\x7e]+$/, 'must be a non-empty string of printable ASCII without spaces'),
  image: startRuntimeRequestWireSchema.shape.image,
  sessionId: runtimeSessionIdSchema.optional(),
  resourceFactor: z.literal(RUNTIME_RESOURCE_FACTORS).default(1),
  env: commandEnvironmentSchema.optional(),
  volumes: volumesSchema.optional(),
  fromSnapshot: runtimeSnapshotIdSchema.optional(),
  keepAlive: z.boolean().default(false),
  pauseOnClose: z.boolean().default(false),
  workingDir: z
    .string()
    .min(1)
    .refine((value) => path.posix.isAbsolute(value), 'must be an absolute path')
    .default('/workspace'),
  startupTimeoutMs: positiveMs.optional(),
  lifecycleTimeoutMs: positiveMs.optional(),
  requestTimeoutMs: positiveMs.optional(),
};

/** Validates {@link RemoteAPIWorkspaceOptions}; `keepAlive` and `pauseOnClose` exclude each other. */
export const remoteApiWorkspaceOptionsSchema = z
  .strictObject(remoteApiWorkspaceFields)
  .refine((options) => !(options.keepAlive && options.pauseOnClose), {
    message: 'give keepAlive or pauseOnClose, not both',
    path: ['pauseOnClose'],
  });

/**
 * Options of {@link RemoteAPIWorkspace}. `runtimeApiUrl`, `runtimeApiKey` and `image` are
 * required.
 *
 * @example
 * ```ts
 * const options: RemoteAPIWorkspaceOptions = {
 *   runtimeApiUrl: 'http://127.0.0.1:3000',
 *   runtimeApiKey: process.env.RUNTIME_API_KEY ?? '',
 *   image: 'agent-workspace/agent-server:latest', // one of the Runtime API server's images
 *   resourceFactor: 2,
 *   pauseOnClose: true,
 * };
 * ```
 */
export interface RemoteAPIWorkspaceOptions {
  /** Base URL of the Runtime API, e.g. `http://127.0.0.1:3000` (no credentials in it). */
  runtimeApiUrl: string;
  /** The Runtime API key (`X-API-Key`); it is sent to the Runtime API only. */
  runtimeApiKey: string;
  /** The agent-server image to run (the server may allow only some). */
  image: string;
  /**
   * Id of the session: an existing one is attached to (a paused one resumed), a missing one
   * started. @default `agent-server-<32 hex>`
   */
  sessionId?: string | undefined;
  /** Resource limits as a multiple of the server's base: 1, 2, 4 or 8. @default 1 */
  resourceFactor?: 1 | 2 | 4 | 8 | undefined;
  /** Environment variables of the sandbox. */
  env?: Record<string, string> | undefined;
  /**
   * Mounts of the sandbox (ours; sent only when given — an OpenHands Runtime API refuses the
   * field): a `bind` of a host directory the Runtime API's operator allows (exactly one of its
   * `allowedBindSources`), or a named `volume` of the server's namespace, shared by every session
   * naming it and kept when they stop. At most 16, each `target` absolute and distinct. Applies
   * when the session is started; a `/start` of an existing session with other volumes is a 409.
   */
  volumes?: RemoteApiVolume[] | undefined;
  /**
   * Start the session from this snapshot (`snapshotId` of `RemoteAPIWorkspace.snapshot()`): its
   * files and git history, not its processes or environment. `image` must be the snapshot's
   * (`snapshot.image`). Ours (sent only when given); applies when the session is started, and a
   * `/start` of an existing session started otherwise is a 409.
   */
  fromSnapshot?: string | undefined;
  /** Leave the session running on `close()` (attach to it later by `sessionId`). @default false */
  keepAlive?: boolean | undefined;
  /** Pause the session on `close()` instead of stopping it (resumed on attach). @default false */
  pauseOnClose?: boolean | undefined;
  /** Directory relative paths resolve against, inside the sandbox. @default '/workspace' */
  workingDir?: string | undefined;
  /** Bound on start-up: provision, wait until ready, agent-server answering. @default 120000 */
  startupTimeoutMs?: number | undefined;
  /** Bound on each pause, resume and release step. @default 30000 */
  lifecycleTimeoutMs?: number | undefined;
  /** Longest wait for an HTTP answer from the Runtime API and the agent-server. @default 60000 */
  requestTimeoutMs?: number | undefined;
}

/** Options after validation, defaults applied. */
export type ResolvedRemoteAPIWorkspaceOptions = z.output<typeof remoteApiWorkspaceOptionsSchema>;
