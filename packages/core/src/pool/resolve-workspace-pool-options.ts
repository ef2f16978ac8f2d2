import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { createWorkspace } from '../factory/create-workspace.js';
import { unknownWorkspaceKindMessage } from '../factory/unknown-workspace-kind-message.js';
import { getWorkspaceType, listWorkspaceKinds } from '../factory/workspace-registry.js';
import type { Workspace } from '../workspace/workspace.js';
import {
  DEFAULT_POOL_ACQUIRE_TIMEOUT_MS,
  DEFAULT_POOL_DRAIN_TIMEOUT_MS,
  DEFAULT_POOL_HEALTH_CHECK_TIMEOUT_MS,
  DEFAULT_POOL_IDLE_CHECK_INTERVAL_MS,
  DEFAULT_POOL_IDLE_TTL_MS,
  DEFAULT_POOL_INITIALIZE_TIMEOUT_MS,
  DEFAULT_POOL_MAX_WAITERS,
  DEFAULT_POOL_REFILL_BACKOFF,
  DEFAULT_POOL_REFILL_CONCURRENCY,
  DEFAULT_POOL_RESET_TIMEOUT_MS,
  DEFAULT_POOL_WARM_UP_TIMEOUT_MS,
  MAX_WORKSPACE_POOL_SIZE,
  MAX_WORKSPACE_POOL_TIME_MS,
  MAX_WORKSPACE_POOL_WAITERS,
  type ResolvedWorkspacePoolOptions,
  type WorkspacePoolOptions,
} from './workspace-pool-options.js';

const knownFields = new Set([
  'kind',
  'config',
  'create',
  'warmUp',
  'warmUpTimeoutMs',
  'min',
  'max',
  'idleTtlMs',
  'acquireTimeoutMs',
  'maxWaiters',
  'refillConcurrency',
  'refillBackoff',
  'reset',
  'resetTimeoutMs',
  'initialize',
  'initializeTimeoutMs',
  'healthCheck',
  'healthCheckTimeoutMs',
  'idleCheckIntervalMs',
  'drainTimeoutMs',
  'onEvent',
]);

/** An integer in `[low, high]`, or `fallback` when undefined. */
function integer(value: unknown, fallback: number, field: string, low: number, high: number) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < low || value > high) {
    throw invalidArgument(field, `must be an integer from ${low} to ${high}, got ${String(value)}`);
  }
  return value;
}

/** A time in `(0, MAX_WORKSPACE_POOL_TIME_MS]` milliseconds, or `fallback` when undefined. */
function duration(value: unknown, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value <= 0 ||
    value > MAX_WORKSPACE_POOL_TIME_MS
  ) {
    throw invalidArgument(
      field,
      `must be a number of milliseconds above 0 and at most ${MAX_WORKSPACE_POOL_TIME_MS}, got ${String(value)}`,
    );
  }
  return value;
}

/** A function or undefined. */
function hook<T>(value: T | undefined, field: string): T | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw invalidArgument(field, `must be a function, got ${typeof value}`);
  }
  return value;
}

/**
 * Checks the workspace config of a registered kind now, with the kind's own schema, so a typo
 * fails at `createWorkspacePool()` rather than at every background start. `local` and
 * `remote`, registered on the first `createWorkspace()`, are checked at their first start.
 */
function checkKindConfig(kind: string, config: Record<string, unknown>): void {
  const type = getWorkspaceType(kind);
  if (!type) {
    if (kind === 'local' || kind === 'remote') return;
    throw new WorkspaceError({
      code: 'UNKNOWN_WORKSPACE_KIND',
      message: unknownWorkspaceKindMessage({ kind, registered: listWorkspaceKinds() }),
      details: { kind, field: 'kind' },
    });
  }
  const parsed = type.schema.safeParse({ ...config, kind });
  if (parsed.success) return;
  // An unknown key is reported on its parent; name the key itself.
  const named = parsed.error.issues.map((issue) => ({
    paths: (issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => [...issue.path, key])
      : [issue.path]
    ).map((keys) => ['config', ...keys.map(String)].join('.')),
    message: issue.message,
  }));
  const fields = named.flatMap(({ paths }) => paths);
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `invalid ${kind} workspace config: ${named
      .map(({ paths, message }) => `${paths.join(', ')}: ${message}`)
      .join('; ')}`,
    cause: parsed.error,
    details: { kind, fields },
  });
}

/** The factory of the pool: `create`, or `createWorkspace({ kind, ...config })`. */
function factoryOf<W extends Workspace>(
  options: WorkspacePoolOptions<W>,
): Pick<ResolvedWorkspacePoolOptions<W>, 'create' | 'label'> {
  const { kind, config, create } = options;
  if (create !== undefined) {
    hook(create, 'create');
    if (kind !== undefined || config !== undefined) {
      throw invalidArgument('create', 'cannot be given with kind or config');
    }
    return { create, label: 'workspace pool' };
  }
  if (typeof kind !== 'string' || kind === '') {
    throw invalidArgument('kind', 'must be a registered workspace kind (or give create)');
  }
  if (
    config !== undefined &&
    (typeof config !== 'object' || config === null || Array.isArray(config))
  ) {
    throw invalidArgument('config', 'must be an object');
  }
  if (config && 'kind' in config && config.kind !== kind) {
    throw invalidArgument('config.kind', `must be left out or equal kind ("${kind}")`);
  }
  const frozen = { ...config, kind };
  checkKindConfig(kind, frozen);
  return { create: () => createWorkspace(frozen) as Promise<W>, label: `${kind} workspace pool` };
}

/**
 * Checks {@link WorkspacePoolOptions} and applies defaults. A bad option is `INVALID_ARGUMENT`
 * naming the field (`min`, `refillBackoff.maxMs`, ...); a bad workspace config is
 * `INVALID_CONFIG` naming `config.<field>`; an unregistered kind is `UNKNOWN_WORKSPACE_KIND`.
 */
export function resolveWorkspacePoolOptions<W extends Workspace>(
  options: WorkspacePoolOptions<W>,
): ResolvedWorkspacePoolOptions<W> {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument('options', 'must be an object');
  }
  for (const field of Object.keys(options)) {
    if (!knownFields.has(field)) throw invalidArgument(field, 'is not a pool option');
  }
  const factory = factoryOf(options);
  const min = integer(options.min, 0, 'min', 0, MAX_WORKSPACE_POOL_SIZE);
  const max = integer(options.max, Math.max(min, 4), 'max', 1, MAX_WORKSPACE_POOL_SIZE);
  if (min > max) throw invalidArgument('min', `must be at most max (${max}), got ${min}`);
  const backoff = options.refillBackoff ?? {};
  if (typeof backoff !== 'object' || backoff === null) {
    throw invalidArgument('refillBackoff', 'must be an object');
  }
  const initialMs = duration(
    backoff.initialMs,
    DEFAULT_POOL_REFILL_BACKOFF.initialMs,
    'refillBackoff.initialMs',
  );
  const maxMs = duration(
    backoff.maxMs,
    Math.max(initialMs, DEFAULT_POOL_REFILL_BACKOFF.maxMs),
    'refillBackoff.maxMs',
  );
  if (maxMs < initialMs) {
    throw invalidArgument('refillBackoff.maxMs', `must be at least initialMs (${initialMs})`);
  }
  return {
    ...factory,
    warmUp: hook(options.warmUp, 'warmUp'),
    warmUpTimeoutMs: duration(
      options.warmUpTimeoutMs,
      DEFAULT_POOL_WARM_UP_TIMEOUT_MS,
      'warmUpTimeoutMs',
    ),
    min,
    max,
    idleTtlMs: duration(options.idleTtlMs, DEFAULT_POOL_IDLE_TTL_MS, 'idleTtlMs'),
    acquireTimeoutMs: duration(
      options.acquireTimeoutMs,
      DEFAULT_POOL_ACQUIRE_TIMEOUT_MS,
      'acquireTimeoutMs',
    ),
    maxWaiters: integer(
      options.maxWaiters,
      DEFAULT_POOL_MAX_WAITERS,
      'maxWaiters',
      1,
      MAX_WORKSPACE_POOL_WAITERS,
    ),
    refillConcurrency: integer(
      options.refillConcurrency,
      Math.min(DEFAULT_POOL_REFILL_CONCURRENCY, max),
      'refillConcurrency',
      1,
      max,
    ),
    refillBackoff: { initialMs, maxMs },
    reset: hook(options.reset, 'reset'),
    resetTimeoutMs: duration(
      options.resetTimeoutMs,
      DEFAULT_POOL_RESET_TIMEOUT_MS,
      'resetTimeoutMs',
    ),
    initialize: hook(options.initialize, 'initialize'),
    initializeTimeoutMs: duration(
      options.initializeTimeoutMs,
      DEFAULT_POOL_INITIALIZE_TIMEOUT_MS,
      'initializeTimeoutMs',
    ),
    healthCheck: hook(options.healthCheck, 'healthCheck'),
    healthCheckTimeoutMs: duration(
      options.healthCheckTimeoutMs,
      DEFAULT_POOL_HEALTH_CHECK_TIMEOUT_MS,
      'healthCheckTimeoutMs',
    ),
    idleCheckIntervalMs: duration(
      options.idleCheckIntervalMs,
      DEFAULT_POOL_IDLE_CHECK_INTERVAL_MS,
      'idleCheckIntervalMs',
    ),
    drainTimeoutMs: duration(
      options.drainTimeoutMs,
      DEFAULT_POOL_DRAIN_TIMEOUT_MS,
      'drainTimeoutMs',
    ),
    onEvent: hook(options.onEvent, 'onEvent'),
  };
}
