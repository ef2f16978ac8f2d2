import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { anySignal } from '../internal/any-signal.js';
import { timeoutSignal } from '../internal/timeout-signal.js';
import type { Workspace } from '../workspace/workspace.js';
import { asPoolError } from './pool-errors.js';
import { runPoolHook } from './run-pool-hook.js';
import type { PooledWorkspaceHook } from './workspace-pool-options.js';

/** Options of {@link initializePoolMember}. */
export interface InitializePoolMemberOptions<W extends Workspace> {
  initialize: PooledWorkspaceHook<W>;
  timeoutMs: number;
  /** The caller's signal: the hook is abandoned and the call rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** The pool's close signal: the hook is abandoned and the call rejects with its reason. */
  stop: AbortSignal;
  /** What messages call the pool. */
  label: string;
}

/**
 * Runs the `initialize` hook on `workspace` within `timeoutMs`. Rejects with the hook's own
 * `WorkspaceError`, a `PROVISIONING_ERROR` for anything else it throws or for the timeout
 * (naming `initializeTimeoutMs`), `ABORTED` when `signal` fires, or the pool's close reason.
 */
export async function initializePoolMember<W extends Workspace>(
  workspace: W,
  { initialize, timeoutMs, signal, stop, label }: InitializePoolMemberOptions<W>,
): Promise<void> {
  // Its own timer, so a timeout of the hook's own making is not taken for the bound.
  const deadline = timeoutSignal({ timeoutMs });
  try {
    await runPoolHook((options) => initialize(workspace, options), {
      timeoutMs,
      signal: anySignal([signal, stop, deadline]),
    });
  } catch (error) {
    if (stop.aborted) throw stop.reason;
    if (signal?.aborted) throw abortedError(signal);
    if (deadline.aborted) {
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `the initialize hook of the ${label} did not finish within ${timeoutMs} ms (initializeTimeoutMs); the member was closed`,
        details: { during: 'initialize', timeoutMs },
      });
    }
    throw asPoolError(error, `the initialize hook of the ${label} failed`);
  }
}

/** The `initialize` of an `acquire()`: its own (checked), else the pool's. */
export function acquireInitializer<W extends Workspace>(
  own: unknown,
  pool: PooledWorkspaceHook<W> | undefined,
): PooledWorkspaceHook<W> | undefined {
  if (own === undefined) return pool;
  if (typeof own !== 'function') {
    throw invalidArgument('initialize', `must be a function, got ${typeof own}`);
  }
  return own as PooledWorkspaceHook<W>;
}

/** What a pool needs to hand a checked member out. */
export interface HandOutOptions<W extends Workspace> {
  /** `performance.now()` when the acquire began. */
  began: number;
  initialize: PooledWorkspaceHook<W> | undefined;
  signal: AbortSignal | undefined;
}
