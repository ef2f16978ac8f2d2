import type { Workspace } from '../workspace/workspace.js';
import type { WorkspacePoolEvent } from './workspace-pool-event.js';

/** Largest `max` a pool accepts: each member is a live sandbox (a container, a VM, ...). */
export const MAX_WORKSPACE_POOL_SIZE = 256;
/** Largest `maxWaiters` a pool accepts. */
export const MAX_WORKSPACE_POOL_WAITERS = 100_000;
/** Largest time option (`idleTtlMs`, `acquireTimeoutMs`, ...) a pool accepts: 24 hours. */
export const MAX_WORKSPACE_POOL_TIME_MS = 24 * 60 * 60 * 1000;
/** Default `acquireTimeoutMs`: as long as a cold sandbox may take to start (120 s). */
export const DEFAULT_POOL_ACQUIRE_TIMEOUT_MS = 120_000;
/** Default `idleTtlMs`: idle members beyond `min` are closed after 60 s. */
export const DEFAULT_POOL_IDLE_TTL_MS = 60_000;
/** Default `drainTimeoutMs`: `close()` waits 30 s for holders before closing leased members. */
export const DEFAULT_POOL_DRAIN_TIMEOUT_MS = 30_000;
/** Default `resetTimeoutMs`: a reset that takes longer than 30 s discards the member. */
export const DEFAULT_POOL_RESET_TIMEOUT_MS = 30_000;
/** Default `warmUpTimeoutMs`: a warm-up that takes longer than 30 s fails the start. */
export const DEFAULT_POOL_WARM_UP_TIMEOUT_MS = 30_000;
/** Default `initializeTimeoutMs`: an `initialize` that takes longer than 30 s fails its acquire. */
export const DEFAULT_POOL_INITIALIZE_TIMEOUT_MS = 30_000;
/** Default `healthCheckTimeoutMs`: a member that does not answer its check in 5 s is dead. */
export const DEFAULT_POOL_HEALTH_CHECK_TIMEOUT_MS = 5_000;
/** Default `idleCheckIntervalMs`: idle members are checked (and dead ones replaced) every 30 s. */
export const DEFAULT_POOL_IDLE_CHECK_INTERVAL_MS = 30_000;
/** Default `maxWaiters`: acquires that may wait at once. */
export const DEFAULT_POOL_MAX_WAITERS = 1_000;
/** Default `refillConcurrency`: background starts toward `min` in flight at once. */
export const DEFAULT_POOL_REFILL_CONCURRENCY = 2;
/** Default first and largest delay after a failed background start. */
export const DEFAULT_POOL_REFILL_BACKOFF = { initialMs: 1_000, maxMs: 60_000 } as const;

/** Options of a pool's `create` factory. */
export interface CreatePooledWorkspaceOptions {
  /** Fires when the pool closes during the start; the factory should release what it made. */
  signal: AbortSignal;
}

/** Options of a pool's `reset`, `healthCheck` and `initialize` hooks. */
export interface PooledWorkspaceHookOptions {
  /** Fires at the hook's timeout or when the pool closes. */
  signal: AbortSignal;
}

/** A pool hook that prepares a member (`warmUp`, `reset`, `initialize`). */
export type PooledWorkspaceHook<W extends Workspace> = (
  workspace: W,
  options: PooledWorkspaceHookOptions,
) => Promise<void>;

/**
 * Options of {@link createWorkspacePool}. Give either `kind` (+ `config`), built with
 * `createWorkspace({ kind, ...config })` for any registered kind, or a typed `create` factory.
 */
export interface WorkspacePoolOptions<W extends Workspace = Workspace> {
  /** A registered workspace kind (`'docker'`, `'remote-api'`, an extension kind). */
  kind?: string | undefined;
  /** The rest of that kind's config (without `kind`), validated by the kind's schema. */
  config?: Record<string, unknown> | undefined;
  /** Builds one started workspace; takes the place of `kind` and `config`. */
  create?: ((options: CreatePooledWorkspaceOptions) => Promise<W>) | undefined;
  /**
   * Runs once after each start, before the member goes idle: e.g. a first command, so the
   * connections a workspace opens lazily are open when it is lent. A failure (or passing
   * `warmUpTimeoutMs`) closes the workspace and counts as a failed start.
   */
  warmUp?: ((workspace: W, options: PooledWorkspaceHookOptions) => Promise<void>) | undefined;
  /** Bound on one `warmUp`. Default 30 000 ms. */
  warmUpTimeoutMs?: number | undefined;
  /** Members kept warm (idle or starting) at all times. Default 0. */
  min?: number | undefined;
  /**
   * Most members alive at once: idle, leased, starting, resetting and closing ones all count.
   * Default `max(min, 4)`, at most {@link MAX_WORKSPACE_POOL_SIZE}.
   */
  max?: number | undefined;
  /** Idle members beyond `min` older than this are closed. Default 60 000 ms. */
  idleTtlMs?: number | undefined;
  /** Bound on one `acquire()`, waiting and starting included. Default 120 000 ms. */
  acquireTimeoutMs?: number | undefined;
  /**
   * Acquires that may wait at once (for a start or a release); one more is `RESOURCE_EXHAUSTED`.
   * Default 1 000, at least 1, at most {@link MAX_WORKSPACE_POOL_WAITERS}.
   */
  maxWaiters?: number | undefined;
  /** Background starts toward `min` in flight at once. Default 2, at most `max`. */
  refillConcurrency?: number | undefined;
  /** Delays after failed background starts, growing from `initialMs` to `maxMs`. Default 1 s to 60 s. */
  refillBackoff?: { initialMs?: number | undefined; maxMs?: number | undefined } | undefined;
  /**
   * Makes a released member fit for the next holder and returns it to the idle set; without it,
   * released members are closed. A reset that throws or times out discards the member. What a
   * reset must cover is the caller's to decide; see the README section "Warm pools".
   */
  reset?: ((workspace: W, options: PooledWorkspaceHookOptions) => Promise<void>) | undefined;
  /** Bound on one `reset`. Default 30 000 ms. */
  resetTimeoutMs?: number | undefined;
  /**
   * Configures a member when it is claimed: runs in `acquire()` after the health check, before
   * the member is lent (an `acquire({ initialize })` of its own replaces it), e.g. delivering
   * the user's key to a dormant agent-server: `(ws, { signal }) => ws.initialize({
   * sessionApiKeys: [userKey], signal })`. A failure (or passing `initializeTimeoutMs`) closes
   * the member and rejects that acquire with the error. An initialized member is never reset:
   * on release it is closed (a server initializes once).
   */
  initialize?: PooledWorkspaceHook<W> | undefined;
  /** Bound on one `initialize`. Default 30 000 ms. */
  initializeTimeoutMs?: number | undefined;
  /**
   * Says whether a member is still usable; a member that fails it is closed and replaced.
   * Default: `alive()` when the workspace has it (sandbox workspaces: their state and a `/health`
   * call), else not `closed`.
   */
  healthCheck?:
    | ((workspace: W, options: PooledWorkspaceHookOptions) => Promise<boolean>)
    | undefined;
  /** Bound on one health check; a check that takes longer fails. Default 5 000 ms. */
  healthCheckTimeoutMs?: number | undefined;
  /** How often idle members are health-checked in the background. Default 30 000 ms. */
  idleCheckIntervalMs?: number | undefined;
  /** How long `close()` waits for holders to release before closing leased members. Default 30 000 ms. */
  drainTimeoutMs?: number | undefined;
  /** Called with each event of the pool; what it throws is ignored. */
  onEvent?: ((event: WorkspacePoolEvent) => void) | undefined;
}

/** Options of `WorkspacePool.acquire`. */
export interface AcquirePooledWorkspaceOptions<W extends Workspace = Workspace> {
  /** Aborting stops waiting (or the `initialize` hook) and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /**
   * Configures the member for this caller before it is lent, in place of the pool's
   * `initialize` (see `WorkspacePoolOptions.initialize`), e.g.
   * `(ws, { signal }) => ws.initialize({ sessionApiKeys: [userKey], signal })`.
   */
  initialize?: PooledWorkspaceHook<W> | undefined;
}

/** {@link WorkspacePoolOptions} checked, with defaults applied. */
export interface ResolvedWorkspacePoolOptions<W extends Workspace> {
  create: (options: CreatePooledWorkspaceOptions) => Promise<W>;
  warmUp: ((workspace: W, options: PooledWorkspaceHookOptions) => Promise<void>) | undefined;
  warmUpTimeoutMs: number;
  /** What messages call the pool: `docker workspace pool`, `workspace pool`. */
  label: string;
  min: number;
  max: number;
  idleTtlMs: number;
  acquireTimeoutMs: number;
  maxWaiters: number;
  refillConcurrency: number;
  refillBackoff: { initialMs: number; maxMs: number };
  reset: ((workspace: W, options: PooledWorkspaceHookOptions) => Promise<void>) | undefined;
  resetTimeoutMs: number;
  initialize: PooledWorkspaceHook<W> | undefined;
  initializeTimeoutMs: number;
  healthCheck:
    | ((workspace: W, options: PooledWorkspaceHookOptions) => Promise<boolean>)
    | undefined;
  healthCheckTimeoutMs: number;
  idleCheckIntervalMs: number;
  drainTimeoutMs: number;
  onEvent: ((event: WorkspacePoolEvent) => void) | undefined;
}
