import { type CommandSandbox, invalidArgument } from '@agent-workspace/core';
import { childEnvironment } from '@agent-workspace/core/internal';
import type { MemoryMonitor } from '../memory/memory-monitor.js';
import type { PluginLogger, RuntimePlugin } from './runtime-plugin.js';

/** Default bound on a plugin's start (requirements and `initialize`). */
export const DEFAULT_PLUGIN_START_TIMEOUT_MS = 120_000;
/** Default time an action may take when it names no `timeout`. */
export const DEFAULT_ACTION_TIMEOUT_MS = 120_000;

/** Options of {@link PluginHost.start}. */
export interface PluginHostOptions {
  /** Plugins by name (see `loadRuntimePlugin`) or as instances; each name at most once. */
  plugins: readonly (string | RuntimePlugin)[];
  /** The workspace directory plugins work in. */
  workingDir: string;
  /**
   * Where each plugin gets a private directory; default a fresh temporary one. With a `sandbox`
   * it must be visible read-write inside the sandbox at the same path (bind it with the
   * sandbox's `writablePaths`).
   */
  stateDir?: string | undefined;
  /**
   * The command sandbox the plugins start their processes in (the kernel, Chromium); none: they
   * run on the host. The host does not close it.
   */
  sandbox?: CommandSandbox | undefined;
  /**
   * The whole environment of every process a plugin starts; default `childEnvironment()` of
   * `@agent-workspace/core/internal` (this process's environment without the server's keys).
   */
  environment?: Readonly<Record<string, string>> | undefined;
  logger?: PluginLogger | undefined;
  /** Bound on each plugin's start, in milliseconds. Default {@link DEFAULT_PLUGIN_START_TIMEOUT_MS}. */
  startTimeoutMs?: number | undefined;
  /** Time an action may take when it names none, in milliseconds. Default {@link DEFAULT_ACTION_TIMEOUT_MS}. */
  actionTimeoutMs?: number | undefined;
  /** The monitor plugins register their processes with; default one of the host's own. */
  memory?: MemoryMonitor | undefined;
  /** Per-process-tree memory limit of the host's own monitor, in bytes (ignored with `memory`). */
  memoryLimitBytes?: number | undefined;
}

/** Options of {@link PluginHost.executeAction}. */
export interface PluginActionOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Checks what `PluginHost.start` cannot leave to the plugins, and answers the environment of
 * their processes: `environment`, or `childEnvironment()` (this process's without the server's
 * keys).
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` naming `plugins` (a name listed twice),
 * `environment` / `environment.<NAME>` (not a record of strings) or `sandbox` (no `wrap`).
 */
export function checkPluginHostOptions(
  options: PluginHostOptions,
): Readonly<Record<string, string>> {
  const names = options.plugins.map((plugin) =>
    typeof plugin === 'string' ? plugin : plugin.name,
  );
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw invalidArgument('plugins', `lists ${repeated} twice`);
  if (options.sandbox !== undefined && typeof options.sandbox?.wrap !== 'function') {
    throw invalidArgument('sandbox', 'must be a CommandSandbox (an object with wrap())');
  }
  const { environment } = options;
  if (environment === undefined) return childEnvironment();
  if (typeof environment !== 'object' || environment === null || Array.isArray(environment)) {
    throw invalidArgument('environment', 'must be an object of variable names to strings');
  }
  for (const [name, value] of Object.entries(environment)) {
    if (typeof value !== 'string') {
      throw invalidArgument(`environment.${name}`, `must be a string, got ${typeof value}`);
    }
  }
  return environment;
}
