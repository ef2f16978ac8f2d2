import { abortedError } from '../errors/aborted-error.js';
import { anySignal } from '../internal/any-signal.js';
import type { Workspace } from '../workspace/workspace.js';
import { runPoolHook } from './run-pool-hook.js';
import type { PooledWorkspaceHookOptions } from './workspace-pool-options.js';

/**
 * The health check a pool uses without its own: false once the workspace is `closed`; else the
 * workspace's `alive()` when it has one (a sandbox workspace: started, not paused, not gone,
 * and its agent-server answers `/health` — a killed container fails it); else true.
 */
export async function defaultPoolHealthCheck(
  workspace: Workspace,
  _options: PooledWorkspaceHookOptions,
): Promise<boolean> {
  const probe = workspace as { closed?: unknown; alive?: unknown };
  if (probe.closed === true) return false;
  if (typeof probe.alive !== 'function') return true;
  return (await (probe.alive as () => Promise<unknown>).call(workspace)) === true;
}

/** Options of {@link probePoolMember}. */
export interface ProbePoolMemberOptions<W extends Workspace> {
  /** The pool's check, or {@link defaultPoolHealthCheck}. */
  healthCheck:
    | ((workspace: W, options: PooledWorkspaceHookOptions) => Promise<boolean>)
    | undefined;
  timeoutMs: number;
  /** The caller's signal: when it fires, the probe rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** The pool's close signal: the check stops and counts as failed. */
  stop: AbortSignal;
  /** Told why a check failed (it threw, or timed out). */
  onError: (error: unknown) => void;
}

/**
 * Runs the health check of `workspace` within `timeoutMs`: true only when it answers true;
 * false when it answers otherwise, throws or times out; `ABORTED` when `signal` fires.
 */
export async function probePoolMember<W extends Workspace>(
  workspace: W,
  {
    healthCheck = defaultPoolHealthCheck,
    timeoutMs,
    signal,
    stop,
    onError,
  }: ProbePoolMemberOptions<W>,
): Promise<boolean> {
  try {
    const alive = await runPoolHook(
      ({ signal: hookSignal }) => healthCheck(workspace, { signal: hookSignal }),
      { timeoutMs, signal: anySignal([signal, stop]) },
    );
    return alive === true;
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    if (!stop.aborted) onError(error);
    return false;
  }
}
