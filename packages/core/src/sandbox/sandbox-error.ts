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
  details?: Record<string, unknown>;
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

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  | ${line}`)
    .join('\n');
}
