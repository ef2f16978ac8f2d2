import { WorkspaceError } from '../errors/workspace-error.js';
import { describeSandboxState, type SandboxState } from './sandbox-state.js';

/** Options of {@link sandboxError}. */
export interface SandboxErrorOptions {
  code: 'PROVISIONING_ERROR' | 'SANDBOX_EXITED';
  /** What happened, without the state and logs (they are appended). */
  message: string;
  /** The sandbox's state, when it could be read. */
  state?: SandboxState | undefined;
  /** The sandbox's last log lines, when they could be read. */
  logs?: string | undefined;
  cause?: unknown;
  /** Extra structured facts. */
  details?: Record<string, unknown> | undefined;
}

/**
 * A `WorkspaceError` about a sandbox whose message ends with the sandbox's state and last log
 * lines, so a failed start or a crash explains itself; both are also in `details`.
 */
export function sandboxError({
  code,
  message,
  state,
  logs,
  cause,
  details,
}: SandboxErrorOptions): WorkspaceError {
  const parts = [message];
  if (state) parts.push(` [the sandbox ${describeSandboxState(state)}]`);
  const trimmed = logs?.trimEnd();
  if (trimmed) parts.push(`\nlast log lines of the sandbox:\n${indent(trimmed)}`);
  else if (logs !== undefined) parts.push('\n(the sandbox logged nothing)');
  return new WorkspaceError({
    code,
    message: parts.join(''),
    cause,
    details: {
      ...details,
      ...(state && { state: state.status, exitCode: state.exitCode }),
      ...(logs !== undefined && { logs }),
    },
  });
}

/** Options of {@link sandboxExitedError}. */
export interface SandboxExitedErrorOptions {
  /** The workspace kind, for the message. */
  kind: string;
  /** The state the sandbox was found in. */
  state: SandboxState;
  /** The sandbox's last log lines, when they could be read. */
  logs: string | undefined;
  cause: unknown;
}

/** The `SANDBOX_EXITED` error of a sandbox that stopped while its workspace was in use. */
export function sandboxExitedError({
  kind,
  state,
  logs,
  cause,
}: SandboxExitedErrorOptions): WorkspaceError {
  return sandboxError({
    code: 'SANDBOX_EXITED',
    message: `the ${kind} sandbox stopped while the workspace was in use; close this workspace and create a new one`,
    state,
    logs,
    cause,
  });
}

/** Options of {@link lifecycleHookError}. */
export interface LifecycleHookErrorOptions {
  /** The workspace kind, for the message. */
  kind: string;
  /** What failed, e.g. `pausing`. */
  step: string;
  /** The step's signal: aborted means it ran out of time. */
  signal: AbortSignal;
  lifecycleTimeoutMs: number;
}

/**
 * The error of a failed pause, resume or release hook: a `WorkspaceError` as it is, anything
 * else as `PROVISIONING_ERROR`.
 */
export function lifecycleHookError(
  error: unknown,
  { kind, step, signal, lifecycleTimeoutMs }: LifecycleHookErrorOptions,
): unknown {
  if (WorkspaceError.isInstance(error)) return error;
  const reason = signal.aborted
    ? `it took longer than ${lifecycleTimeoutMs} ms (lifecycleTimeoutMs)`
    : messageOf(error);
  return new WorkspaceError({
    code: 'PROVISIONING_ERROR',
    message: `${step} the ${kind} sandbox failed: ${reason}`,
    cause: error,
  });
}

/** The message of a thrown value, whatever its type. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  | ${line}`)
    .join('\n');
}
