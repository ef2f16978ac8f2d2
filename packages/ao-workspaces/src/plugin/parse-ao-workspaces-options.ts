import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import {
  DEFAULT_POST_CREATE_TIMEOUT_MS,
  DEFAULT_REAP_TIMEOUT_MS,
  defaultGitWorkspacesRoot,
} from '@agent-workspace/git-workspaces';
import { expandHome } from './expand-home.js';

/** A refusal met by one of the plugin's operations; see {@link AoWorkspacesOptions.onRefusal}. */
export interface AoRefusal {
  /** The ao-core workspace method that was refused. */
  operation: 'create' | 'destroy' | 'postCreate' | 'restore';
  /** Its `WorkspaceError` (`ALREADY_EXISTS`, `FORBIDDEN` or `WORKSPACE_OCCUPIED`). */
  error: WorkspaceError;
}

/** Options of the plugins: the plugin config of `registry.register(module, config)`. */
export interface AoWorkspacesOptions {
  /** Where trees live (`<root>/<projectId>/<sessionId>`); `~` is expanded. Default `~/.agent-workspace/git-workspaces`. */
  root?: string | undefined;
  /**
   * Reap the trees of dead owners (clean ones only) before the first operation. Default
   * `false`: the process that creates an ao session (`ao spawn`) exits while its agent works on.
   */
  reapOnStart?: boolean | undefined;
  /** Bound of that reap in milliseconds. Default 30 s. */
  reapTimeoutMs?: number | undefined;
  /** Let `destroy` delete uncommitted work. Default `false`: it refuses with `FORBIDDEN`. */
  forceDestroy?: boolean | undefined;
  /** Time each `postCreate` command may run, in milliseconds. Default 120 s. */
  postCreateTimeoutMs?: number | undefined;
  /**
   * Told of every refusal just before it is thrown (ao-core swallows `destroy` errors when it
   * cleans up). Default: a process warning of type `AgentWorkspaceRefusal`.
   */
  onRefusal?: ((refusal: AoRefusal) => void) | undefined;
  /**
   * Called with each warning of a `create` or `restore` that succeeded anyway (a failed fetch of
   * the default branch: the tree starts from the local one), since ao's `WorkspaceInfo` has no
   * room for them. Default: a process warning of type `AgentWorkspaceWarning`.
   */
  onWarning?: ((warning: AoWarning) => void) | undefined;
}

/** A warning of a successful operation; see {@link AoWorkspacesOptions.onWarning}. */
export interface AoWarning {
  operation: 'create' | 'restore';
  /** The tree the operation made. */
  path: string;
  message: string;
}

/** {@link AoWorkspacesOptions} with every default filled in. */
export interface ResolvedAoWorkspacesOptions {
  root: string;
  reapOnStart: boolean;
  reapTimeoutMs: number;
  forceDestroy: boolean;
  postCreateTimeoutMs: number;
  onRefusal: (refusal: AoRefusal) => void;
  onWarning: (warning: AoWarning) => void;
}

const KEYS = new Set([
  'root',
  'reapOnStart',
  'reapTimeoutMs',
  'forceDestroy',
  'postCreateTimeoutMs',
  'onRefusal',
  'onWarning',
]);

/**
 * Validates a plugin config (`undefined` for none). Rejects with `INVALID_CONFIG` whose
 * `details.fields` names the bad or unknown field.
 */
export function parseAoWorkspacesOptions(config: unknown): ResolvedAoWorkspacesOptions {
  if (config === undefined || config === null) config = {};
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw invalidOption('(config)', 'must be an object');
  }
  const options = config as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) throw invalidOption(key, `is not an option (${[...KEYS].join(', ')})`);
  }
  const { root, reapOnStart, reapTimeoutMs, forceDestroy, postCreateTimeoutMs } = options;
  const { onRefusal, onWarning } = options;
  if (root !== undefined && (typeof root !== 'string' || root === '')) {
    throw invalidOption('root', 'must be a non-empty path');
  }
  if (onRefusal !== undefined && typeof onRefusal !== 'function') {
    throw invalidOption('onRefusal', 'must be a function');
  }
  if (onWarning !== undefined && typeof onWarning !== 'function') {
    throw invalidOption('onWarning', 'must be a function');
  }
  return {
    root: root === undefined ? defaultGitWorkspacesRoot() : path.resolve(expandHome(root)),
    reapOnStart: booleanOption(reapOnStart, 'reapOnStart'),
    reapTimeoutMs: positiveOption(reapTimeoutMs, DEFAULT_REAP_TIMEOUT_MS, 'reapTimeoutMs'),
    forceDestroy: booleanOption(forceDestroy, 'forceDestroy'),
    postCreateTimeoutMs: positiveOption(
      postCreateTimeoutMs,
      DEFAULT_POST_CREATE_TIMEOUT_MS,
      'postCreateTimeoutMs',
    ),
    onRefusal: (onRefusal as ResolvedAoWorkspacesOptions['onRefusal'] | undefined) ?? warnRefusal,
    onWarning: (onWarning as ResolvedAoWorkspacesOptions['onWarning'] | undefined) ?? warnWarning,
  };
}

function warnRefusal({ operation, error }: AoRefusal): void {
  process.emitWarning(`ao workspace ${operation} refused: ${error.message}`, {
    type: 'AgentWorkspaceRefusal',
    code: error.code,
  });
}

function warnWarning({ operation, path: tree, message }: AoWarning): void {
  process.emitWarning(`ao workspace ${operation} of ${tree}: ${message}`, {
    type: 'AgentWorkspaceWarning',
  });
}

function booleanOption(value: unknown, field: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean')
    throw invalidOption(field, `must be a boolean, got ${typeof value}`);
  return value;
}

function positiveOption(value: unknown, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidOption(field, `must be a positive finite number, got ${String(value)}`);
  }
  return value;
}

function invalidOption(field: string, reason: string): WorkspaceError {
  return new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `ao workspace plugin config: ${field} ${reason}`,
    details: { field, fields: [field] },
  });
}
