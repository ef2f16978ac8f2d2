import { WorkspaceError } from '../errors/workspace-error.js';
import type { Workspace } from '../workspace/workspace.js';

/** Options of {@link PooledWorkspaceLease.release}. */
export interface ReleasePooledWorkspaceOptions {
  /** Close the workspace even when the pool has a `reset` (the holder knows it is spoiled). */
  discard?: boolean | undefined;
}

/**
 * One workspace lent by a pool (see `WorkspacePool.acquire`). Release it when done:
 * `await using lease = await pool.acquire()` does that on scope exit.
 */
export interface PooledWorkspaceLease<W extends Workspace = Workspace> extends AsyncDisposable {
  /**
   * The workspace, for this holder only. After `release()` every method rejects with
   * `WORKSPACE_CLOSED` (a synchronous helper throws it; `close()` does nothing), so a stale
   * reference cannot reach the next holder. Calling `close()` on it while leased closes it; the
   * pool then only drops it.
   */
  readonly workspace: W;
  /** Milliseconds `acquire()` took. */
  readonly waitedMs: number;
  /** True once released (by the holder, or by the pool's `close()`). */
  readonly released: boolean;
  /**
   * Gives the workspace back: by default it is closed and the pool refills in the background;
   * with a pool `reset` it is reset and becomes idle again (closed when the reset fails), unless
   * it was initialized (the pool's `initialize`, or the holder's call): then it is closed.
   * Resolves when that is done; never rejects (failures go to `stats().lastError`).
   * Idempotent; `[Symbol.asyncDispose]` calls it.
   */
  release(options?: ReleasePooledWorkspaceOptions): Promise<void>;
}

/** The holder's view of a leased workspace, as made by {@link guardPooledWorkspace}. */
export interface PooledWorkspaceGuard<W extends Workspace> {
  /** What the holder gets. */
  readonly view: W;
  /** True when the holder called `close()` (or disposed it) through the view. */
  readonly closedByHolder: boolean;
  /** True when the holder called `initialize()` through the view (a server initializes once). */
  readonly initializedByHolder: boolean;
  /** Cuts the view off: from now on its methods reject with `WORKSPACE_CLOSED`. */
  revoke(): void;
}

const closers = new Set<PropertyKey>(['close', Symbol.asyncDispose]);

/** Methods of the workspace contracts that return a promise without being `async` functions. */
const promiseMethods = new Set<PropertyKey>([
  ...['executeCommand', 'fileUpload', 'fileDownload', 'gitChanges', 'gitDiff', 'pause'],
  ...['resume', 'identity', 'agentServerEndpoint', 'uploadDirectory', 'downloadDirectory'],
  ...['executeAction', 'runtimePlugins', 'browse', 'browseInteractive', 'runIpython'],
  ...['initState', 'initialize'],
]);

const AsyncFunction = (async () => {}).constructor;

/**
 * Wraps `workspace` in a proxy whose methods run on the workspace itself (private fields work)
 * until {@link PooledWorkspaceGuard.revoke}; after that they fail with `WORKSPACE_CLOSED`:
 * methods that return a promise reject, the others throw, so a method run on the view through
 * its prototype (`this` is the view) fails at its first internal call and leaves no stray
 * rejected promise behind. `close()` does nothing: the workspace may serve another holder.
 */
export function guardPooledWorkspace<W extends Workspace>(workspace: W): PooledWorkspaceGuard<W> {
  let revoked = false;
  let closedByHolder = false;
  let initializedByHolder = false;
  const view = new Proxy(workspace, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || property === 'constructor') return value;
      return (...args: unknown[]): unknown => {
        if (revoked) {
          if (closers.has(property)) return Promise.resolve();
          const error = new WorkspaceError({
            code: 'WORKSPACE_CLOSED',
            message: `the pooled workspace was released; acquire another to call ${String(property)}()`,
          });
          if (promiseMethods.has(property) || value instanceof AsyncFunction) {
            return Promise.reject(error);
          }
          throw error;
        }
        if (closers.has(property)) closedByHolder = true;
        if (property === 'initialize') initializedByHolder = true;
        return (value as (...rest: unknown[]) => unknown).apply(target, args);
      };
    },
    set() {
      return false;
    },
  });
  return {
    view,
    get closedByHolder() {
      return closedByHolder || (workspace as { closed?: unknown }).closed === true;
    },
    get initializedByHolder() {
      return initializedByHolder;
    },
    revoke() {
      revoked = true;
    },
  };
}

/** Options of {@link createPooledWorkspaceLease}. */
export interface CreatePooledWorkspaceLeaseOptions<W extends Workspace> {
  workspace: W;
  waitedMs: number;
  /** Takes the workspace back; called once, on the first `release()`, with what the holder did. */
  giveBack: (
    holder: Pick<PooledWorkspaceGuard<W>, 'closedByHolder' | 'initializedByHolder'>,
    options: ReleasePooledWorkspaceOptions,
  ) => Promise<void>;
}

/** A lease and the pool's handle on it. */
export interface CreatedPooledWorkspaceLease<W extends Workspace> {
  lease: PooledWorkspaceLease<W>;
  /** Ends the lease without giving the workspace back (the pool closes it): `release()` then does nothing. */
  revoke(): void;
}

/** Builds the lease of one acquire: a guarded view, an idempotent release, disposal. */
export function createPooledWorkspaceLease<W extends Workspace>({
  workspace,
  waitedMs,
  giveBack,
}: CreatePooledWorkspaceLeaseOptions<W>): CreatedPooledWorkspaceLease<W> {
  const guard = guardPooledWorkspace(workspace);
  let releasing: Promise<void> | undefined;
  const lease: PooledWorkspaceLease<W> = {
    workspace: guard.view,
    waitedMs,
    get released() {
      return releasing !== undefined;
    },
    release(options: ReleasePooledWorkspaceOptions = {}) {
      if (!releasing) {
        guard.revoke();
        releasing = giveBack(guard, options);
      }
      return releasing;
    },
    [Symbol.asyncDispose]() {
      return lease.release();
    },
  };
  return {
    lease,
    revoke() {
      releasing ??= Promise.resolve();
      guard.revoke();
    },
  };
}
