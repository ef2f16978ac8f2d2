import { z } from 'zod';

/**
 * Stable codes of `WorkspaceError` (`@agent-workspace/core`). Branch on the code, never on the
 * message. How each crosses the wire is in `WORKSPACE_ERROR_WIRE`.
 *
 * - `INVALID_ARGUMENT`: a caller passed a bad value (the message names the field).
 * - `INVALID_CWD`: the working directory of a command does not exist or is not a directory.
 * - `NOT_FOUND`: a file or directory the operation needs does not exist (the message names it).
 * - `ALREADY_EXISTS`: the thing to create exists already (a Runtime API session id in use).
 * - `FORBIDDEN`: a confinement policy refuses the path or operation (it leads outside the working
 *   directory, or through a hard link, a foreign git directory, ...); the message names the field.
 * - `INVALID_CONFIG`: a workspace or LLM config failed validation (the message names the field).
 * - `UNKNOWN_WORKSPACE_KIND` / `DUPLICATE_WORKSPACE_KIND`: registry misuse.
 * - `NOT_SUPPORTED`: the workspace type cannot do this.
 * - `ABORTED`: the caller's `AbortSignal` fired.
 * - `WORKSPACE_CLOSED`: the workspace was used after `close()`.
 * - `WORKSPACE_PAUSED`: the workspace was used while paused.
 * - `GIT_ERROR`: git failed in a way that is not "not a repository".
 * - `CONNECTION_ERROR`, `AUTHENTICATION_ERROR`, `SERVER_ERROR`, `PROTOCOL_ERROR`: transport failures.
 * - `PROVISIONING_ERROR`: a sandbox could not be created, never became alive, or could not be
 *   paused, resumed or released; the message carries the sandbox's state and last log lines
 *   when there are any.
 * - `SANDBOX_EXITED`: the sandbox of a provisioned workspace (a container, a process, ...)
 *   stopped or disappeared while the workspace was in use; `details` has its `exitCode` and
 *   last `logs`. The workspace cannot recover: close it and create a new one.
 * - `SPAWN_ERROR`: the process could not be started (`details.errno` says why, e.g. `EMFILE`).
 * - `RESOURCE_EXHAUSTED`: a limit was reached (concurrent commands, open files, connections);
 *   nothing was done, and the same call may succeed later.
 * - `WORKSPACE_OCCUPIED`: an occupancy lease of another holder refuses the lease asked for (an
 *   `exclusive_write` is held, or `shared_read` holders are); the message names the holder and
 *   `details` has its `holderId`, `pid`, `mode` and `since`. It may succeed once they release.
 *
 * Failures of a call to an LLM provider (`LLMError` of `@agent-workspace/sdk`, after its retries):
 * - `LLM_AUTHENTICATION`: the provider refused the API key (401/403), or there is none.
 * - `LLM_BAD_REQUEST`: the provider refused the request (another 4xx: unknown model, bad
 *   message sequence, ...); retrying the same request cannot help.
 * - `LLM_CONTEXT_WINDOW_EXCEEDED`: the transcript does not fit the model's context window;
 *   condense it and ask again.
 * - `LLM_RATE_LIMITED`: the provider answered 429 on every attempt.
 * - `LLM_SERVER_ERROR`: the provider answered 5xx (or 409) on every attempt.
 * - `LLM_CONNECTION`: the provider could not be reached (refused, reset, DNS) on every attempt.
 * - `LLM_TIMEOUT`: no answer within the call's timeout on every attempt.
 * - `LLM_BAD_RESPONSE`: the provider answered with something that is not a completion
 *   (malformed JSON, no choices).
 */
export const workspaceErrorCodeSchema = z.enum([
  'INVALID_ARGUMENT',
  'INVALID_CWD',
  'FORBIDDEN',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'INVALID_CONFIG',
  'UNKNOWN_WORKSPACE_KIND',
  'DUPLICATE_WORKSPACE_KIND',
  'NOT_SUPPORTED',
  'ABORTED',
  'WORKSPACE_CLOSED',
  'WORKSPACE_PAUSED',
  'GIT_ERROR',
  'CONNECTION_ERROR',
  'AUTHENTICATION_ERROR',
  'SERVER_ERROR',
  'PROTOCOL_ERROR',
  'PROVISIONING_ERROR',
  'SANDBOX_EXITED',
  'SPAWN_ERROR',
  'RESOURCE_EXHAUSTED',
  'WORKSPACE_OCCUPIED',
  'LLM_AUTHENTICATION',
  'LLM_BAD_REQUEST',
  'LLM_CONTEXT_WINDOW_EXCEEDED',
  'LLM_RATE_LIMITED',
  'LLM_SERVER_ERROR',
  'LLM_CONNECTION',
  'LLM_TIMEOUT',
  'LLM_BAD_RESPONSE',
]);

/** A stable code of `WorkspaceError`; see {@link workspaceErrorCodeSchema} for each one. */
export type WorkspaceErrorCode = z.infer<typeof workspaceErrorCodeSchema>;
