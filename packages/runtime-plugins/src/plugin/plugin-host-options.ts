import type { CommandSandbox } from '@agent-workspace/core';
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
