import { z } from 'zod';
import { execErrorCodeSchema } from '../errors/exec-error-code.js';
import { hexIdSchema } from '../ids/hex-id.js';
import {
  clientPathSchema,
  commandEnvironmentSchema,
  commandTextSchema,
  commandTimeoutSchema,
} from '../limits/command-input-schemas.js';
import { terminationReasonSchema } from './termination-reason.js';

// Frames of the streaming-exec channel; its path and capability are in `wire/exec-stream.ts`.

/** Signals a client may send to a command's process group. */
const execSignalSchema = z.enum([
  'SIGINT',
  'SIGTERM',
  'SIGKILL',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
]);

/** A signal a client may send to a command's process group. */
export type ExecSignal = z.infer<typeof execSignalSchema>;

const startFrameSchema = z.object({
  type: z.literal('start'),
  /** Client-chosen token echoed in `started`, to match replies to requests. */
  request_id: z.string().max(200).nullish(),
  command: commandTextSchema,
  cwd: clientPathSchema.nullish(),
  /** Seconds; fractions allowed. Default 300. */
  timeout: commandTimeoutSchema.nullish(),
  env: commandEnvironmentSchema.nullish(),
  /** Keep stdin open for `stdin` frames; otherwise the command reads EOF. */
  stdin: z.boolean().nullish(),
  /**
   * Keep the command running when this connection closes and no other attaches. By default the
   * server ends a command whose last follower left, after a grace period for reconnecting.
   */
  detached: z.boolean().nullish(),
});

const stdinFrameSchema = z.object({
  type: z.literal('stdin'),
  command_id: hexIdSchema,
  data: z.string(),
  encoding: z.enum(['utf8', 'base64']).nullish(),
});

const closeStdinFrameSchema = z.object({ type: z.literal('close_stdin'), command_id: hexIdSchema });

const signalFrameSchema = z.object({
  type: z.literal('signal'),
  command_id: hexIdSchema,
  signal: execSignalSchema,
});

const attachFrameSchema = z.object({
  type: z.literal('attach'),
  command_id: hexIdSchema,
  /** Replay events with `order` greater than this; `-1` replays everything. */
  after_order: z.number().int().min(-1),
});

/** Wire shape of a frame the client sends (after the first-frame `{"type":"auth"}`). */
export const execClientFrameWireSchema = z.discriminatedUnion('type', [
  startFrameSchema,
  stdinFrameSchema,
  closeStdinFrameSchema,
  signalFrameSchema,
  attachFrameSchema,
]);

/** Wire JSON of a client frame. */
export type ExecClientFrameWire = z.infer<typeof execClientFrameWireSchema>;

const startedFrameSchema = z.object({
  type: z.literal('started'),
  command_id: hexIdSchema,
  request_id: z.string().nullable(),
  pid: z.number().int().nullable(),
});

const outputFrameSchema = z.object({
  type: z.literal('output'),
  command_id: hexIdSchema,
  order: z.number().int().nonnegative(),
  stream: z.enum(['stdout', 'stderr']),
  data: z.string(),
});

const exitFrameSchema = z.object({
  type: z.literal('exit'),
  command_id: hexIdSchema,
  order: z.number().int().nonnegative(),
  exit_code: z.number().int(),
  timeout_occurred: z.boolean(),
  duration_ms: z.number().nonnegative(),
  /** Why the command was ended, when it did not exit on its own. */
  termination_reason: terminationReasonSchema.optional(),
});

const errorFrameSchema = z.object({
  type: z.literal('error'),
  command_id: hexIdSchema.nullable(),
  request_id: z.string().nullable(),
  code: execErrorCodeSchema,
  /** The `start` field at fault (e.g. `cwd`), when the refusal is about one; absent otherwise. */
  field: z.string().nullish(),
  detail: z.string(),
});

/** Wire shape of a frame the server sends. */
export const execServerFrameWireSchema = z.discriminatedUnion('type', [
  startedFrameSchema,
  outputFrameSchema,
  exitFrameSchema,
  errorFrameSchema,
]);

/** Wire JSON of a server frame. */
export type ExecServerFrameWire = z.infer<typeof execServerFrameWireSchema>;
