import { z } from 'zod';

/**
 * Codes of the exec socket's `error` frame, closed: a server sends no other, and a client maps
 * each with `EXEC_ERROR_OUTCOMES`.
 *
 * - `INVALID_FRAME`: the frame is not JSON, fails its schema, or a `start` has a bad argument
 *   (`field` names it).
 * - `INVALID_CWD`: the `start`'s cwd does not exist or is not a directory.
 * - `FORBIDDEN`: confinement refuses the `start` (`field` names what, e.g. `cwd`).
 * - `TOO_MANY_COMMANDS`: the server runs as many commands as it may; retry later.
 * - `SPAWN_ERROR`: the process could not be started.
 * - `UNAVAILABLE`: the server is shutting down.
 * - `UNKNOWN_COMMAND`: no command has this id (the server restarted without its state?).
 * - `HISTORY_EXPIRED`: the events this connection still had to send were dropped (retention or
 *   size limit), e.g. after a reconnect that came too late.
 * - `NOT_RUNNING`: a signal or stdin for a command that has finished.
 * - `STDIN_CLOSED`: stdin for a command started without `stdin: true`, or whose stdin closed.
 * - `INTERNAL_ERROR`: a server bug; the detail says what.
 */
export const execErrorCodeSchema = z.enum([
  'INVALID_FRAME',
  'INVALID_CWD',
  'FORBIDDEN',
  'TOO_MANY_COMMANDS',
  'SPAWN_ERROR',
  'UNAVAILABLE',
  'UNKNOWN_COMMAND',
  'HISTORY_EXPIRED',
  'NOT_RUNNING',
  'STDIN_CLOSED',
  'INTERNAL_ERROR',
]);

/** A code of the exec socket's `error` frame; see {@link execErrorCodeSchema}. */
export type ExecErrorCode = z.infer<typeof execErrorCodeSchema>;
