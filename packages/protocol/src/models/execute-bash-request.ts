import { z } from 'zod';
import {
  clientPathSchema,
  commandTextSchema,
  commandTimeoutSchema,
} from '../limits/command-input-schemas.js';

/** Seconds a bash command may run when the request names no timeout (as in OpenHands). */
export const DEFAULT_BASH_TIMEOUT_SECONDS = 300;

/**
 * Wire shape of `ExecuteBashRequest`, the body of `POST /api/bash/start_bash_command` and
 * `execute_bash_command` and the client frame on `/sockets/bash-events`. Unlike OpenHands,
 * `timeout` may be fractional (OpenHands truncates it with `int()`, so `0.5` became `0`), and the
 * command, cwd and timeout have the limits of `@agent-workspace/protocol`'s `MAX_*` constants.
 */
export const executeBashRequestWireSchema = z.object({
  command: commandTextSchema,
  cwd: clientPathSchema.nullable().optional(),
  timeout: commandTimeoutSchema.default(DEFAULT_BASH_TIMEOUT_SECONDS),
});

/**
 * Wire JSON of a request to run a shell command: `cwd` `null` or absent means the server's
 * default; `timeout` is the seconds before the command's process tree is killed (positive, may
 * be fractional).
 */
export type ExecuteBashRequestWire = z.infer<typeof executeBashRequestWireSchema>;
