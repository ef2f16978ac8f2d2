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

/** Wire JSON of an {@link ExecuteBashRequest}. */
export type ExecuteBashRequestWire = z.infer<typeof executeBashRequestWireSchema>;

/** A request to run a shell command on the agent-server. */
export interface ExecuteBashRequest {
  /** The command line, run by the shell. Never empty. */
  command: string;
  /** Working directory; absent means the server's default. */
  cwd?: string | undefined;
  /** Seconds before the command's process tree is killed; positive, may be fractional. */
  timeoutSeconds: number;
}

/** Parses wire JSON into an {@link ExecuteBashRequest}. Throws a `ZodError` naming the bad field. */
export function executeBashRequestFromWire(json: unknown): ExecuteBashRequest {
  const wire = executeBashRequestWireSchema.parse(json);
  return {
    command: wire.command,
    ...(wire.cwd != null ? { cwd: wire.cwd } : {}),
    timeoutSeconds: wire.timeout,
  };
}

/** Serialises an {@link ExecuteBashRequest} to its wire JSON (`cwd` is `null` when absent). */
export function executeBashRequestToWire(request: ExecuteBashRequest): ExecuteBashRequestWire {
  return {
    command: request.command,
    cwd: request.cwd ?? null,
    timeout: request.timeoutSeconds,
  };
}
