import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { diagnoseSandbox, readSandboxLogs, type SandboxProbe } from './diagnose-sandbox.js';
import { messageOf, sandboxError } from './sandbox-error.js';
import { isSandboxGone, type SandboxState } from './sandbox-state.js';

/** What {@link startFailure} needs to know about the interrupted start. */
export interface StartFailureContext {
  /** The sandbox being started. */
  probe: SandboxProbe;
  /** What `start()` was doing, e.g. `creating the sandbox`. */
  step: string;
  /** Aborted when `startupTimeoutMs` ran out. */
  deadline: AbortSignal;
  /** The caller's signal. */
  userSignal: AbortSignal | undefined;
  /** Aborted by `close()`, with a `WORKSPACE_CLOSED` reason. */
  closing: AbortSignal;
  startupTimeoutMs: number;
}

/** Turns what interrupted `start()` into the error it rejects with. */
export async function startFailure(error: unknown, context: StartFailureContext): Promise<unknown> {
  const { probe, step, deadline, userSignal, closing, startupTimeoutMs } = context;
  if (closing.aborted) return closing.reason;
  if (userSignal?.aborted) return abortedError(userSignal);
  if (deadline.aborted) {
    return sandboxError({
      code: 'PROVISIONING_ERROR',
      message: `the ${probe.kind()} sandbox was not ready within ${startupTimeoutMs} ms (startupTimeoutMs) while ${step}`,
      ...(await diagnoseSandbox(probe)),
      cause: error,
      details: { step, startupTimeoutMs },
    });
  }
  // Provider errors (engine unreachable, bad config, ...) explain themselves.
  if (WorkspaceError.isInstance(error) && error.code !== 'PROVISIONING_ERROR') return error;
  if (step === 'creating the sandbox') {
    return WorkspaceError.isInstance(error)
      ? error
      : sandboxError({
          code: 'PROVISIONING_ERROR',
          message: `creating the ${probe.kind()} sandbox failed: ${messageOf(error)}`,
          cause: error,
        });
  }
  const diagnosis = await diagnoseSandbox(probe);
  if (diagnosis.state && isSandboxGone(diagnosis.state)) {
    return diedDuringStart(probe, diagnosis.state, diagnosis.logs, error);
  }
  if (WorkspaceError.isInstance(error)) return error;
  return sandboxError({
    code: 'PROVISIONING_ERROR',
    message: `${step} failed: ${messageOf(error)}`,
    ...diagnosis,
    cause: error,
    details: { step },
  });
}

/**
 * The `PROVISIONING_ERROR` of a sandbox that died before its agent-server answered; the
 * `details` of a `WorkspaceError` cause (e.g. a provider's `podStatus`) are kept.
 */
export async function diedDuringStart(
  probe: SandboxProbe,
  state: SandboxState,
  logs: string | undefined,
  cause?: unknown,
): Promise<WorkspaceError> {
  return sandboxError({
    code: 'PROVISIONING_ERROR',
    message: `the ${probe.kind()} sandbox stopped before its agent-server became alive`,
    state,
    logs: logs ?? (await readSandboxLogs(probe)),
    cause,
    ...(WorkspaceError.isInstance(cause) && { details: cause.details }),
  });
}
