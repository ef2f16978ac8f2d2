import {
  errorObservation,
  type ObservationWire,
  type RuntimePluginState,
  type RuntimePluginStatusWire,
  runtimePluginCapability,
} from '@agent-workspace/protocol';
import type { RuntimePlugin } from './runtime-plugin.js';

/** What a `PluginHost` keeps of one plugin. */
export interface PluginEntry {
  name: string;
  /** The plugin, once loaded. */
  plugin: RuntimePlugin | undefined;
  state: RuntimePluginState;
  error: string | null;
  healthy: boolean | null;
  memoryBytes: number | null;
  /** Settles once the plugin started or failed to. */
  ready: Promise<void>;
}

/** A new entry, `starting`, for the plugin `name` (with the plugin when given as an instance). */
export function pluginEntry(name: string, plugin: RuntimePlugin | undefined): PluginEntry {
  return {
    name,
    plugin,
    state: 'starting',
    error: null,
    healthy: null,
    memoryBytes: null,
    ready: Promise.resolve(),
  };
}

/** The `/server_info` `plugins[]` line of an entry. */
export function pluginStatusOf(entry: PluginEntry): RuntimePluginStatusWire {
  return {
    name: entry.name,
    state: entry.state,
    error: entry.error,
    actions: Object.keys(entry.plugin?.actions ?? {}),
    capabilities:
      entry.state === 'ready'
        ? [runtimePluginCapability(entry.name), ...(entry.plugin?.capabilities ?? [])]
        : [],
    healthy: entry.state === 'ready' ? entry.healthy : null,
    memory_bytes: entry.memoryBytes,
  };
}

/**
 * The `error` observation of an action whose plugin is not ready: the wait was cancelled
 * (`ABORTED`), the plugin is still starting after the start timeout (`PLUGIN_STARTING`), or
 * failed or closed (`PLUGIN_FAILED`); `undefined` when it is ready.
 */
export function unreadyObservation(
  entry: PluginEntry,
  cancelled: boolean,
  startTimeoutMs: number,
): ObservationWire | undefined {
  if (cancelled) return errorObservation(`The ${entry.name} plugin call was cancelled.`, 'ABORTED');
  if (entry.state === 'starting') {
    return errorObservation(
      `The ${entry.name} plugin is still starting after ${startTimeoutMs / 1000} s; try again later.`,
      'PLUGIN_STARTING',
    );
  }
  if (entry.state === 'ready') return undefined;
  return errorObservation(
    `The ${entry.name} plugin is ${entry.state}${entry.error ? `: ${entry.error}` : ''}`,
    'PLUGIN_FAILED',
  );
}
