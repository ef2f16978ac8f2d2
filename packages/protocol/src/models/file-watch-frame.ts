import { z } from 'zod';
import { workspaceErrorCodeSchema } from '../errors/workspace-error-code.js';
import { clientPathSchema } from '../limits/command-input-schemas.js';
import { MAX_FILE_EVENTS_PER_SECOND, MAX_QUEUED_FILE_EVENTS } from '../wire/file-watch.js';

// Frames of the file-watch socket; its path, capability and limits are in `wire/file-watch.ts`.

/** Query of the file-watch socket: the directory, `recursive`, the queue and rate limits. */
export const fileWatchQueryWireSchema = z.object({
  /** The watched directory; relative paths resolve against the server's working directory. */
  path: clientPathSchema,
  /** Watch every directory below too (links are not followed). Default `false`. */
  recursive: z.stringbool().optional(),
  /** Most events queued for this connection, 1 to `MAX_QUEUED_FILE_EVENTS`; default 1024. */
  max_queued_events: z.coerce.number().int().min(1).max(MAX_QUEUED_FILE_EVENTS).optional(),
  /** Most events sent per second, 1 to `MAX_FILE_EVENTS_PER_SECOND`; default 1000. */
  max_events_per_second: z.coerce.number().int().min(1).max(MAX_FILE_EVENTS_PER_SECOND).optional(),
  /** Deprecated: authenticate with a query parameter. */
  session_api_key: z.string().optional(),
});

/** Wire query of the file-watch socket. */
export type FileWatchQueryWire = z.infer<typeof fileWatchQueryWireSchema>;

const readyFrameSchema = z.object({ type: z.literal('ready') });

const changeFrameSchema = z.object({
  type: z.enum(['create', 'write', 'remove', 'overflow']),
  /** POSIX path relative to the watched directory; `''` for `overflow`. */
  path: z.string(),
  /** Present when known: a directory or not. */
  is_directory: z.boolean().optional(),
});

const errorFrameSchema = z.object({
  type: z.literal('error'),
  code: workspaceErrorCodeSchema,
  message: z.string(),
  /** The query field at fault, when one is. */
  field: z.string().optional(),
});

/**
 * Wire shape of a frame the server sends on the file-watch socket: `ready` once, then changes;
 * an `error` frame (say `NOT_FOUND` naming `path`) is the last before the socket closes.
 */
export const fileWatchServerFrameWireSchema = z.discriminatedUnion('type', [
  readyFrameSchema,
  changeFrameSchema,
  errorFrameSchema,
]);

/** Wire JSON of a file-watch server frame. */
export type FileWatchServerFrameWire = z.infer<typeof fileWatchServerFrameWireSchema>;
