export { type BrowserPluginOptions, createBrowserPlugin } from './browser/browser-plugin.js';
export {
  formatMebibytes,
  MEMORY_SAMPLE_INTERVAL_MS,
  MemoryMonitor,
  type MemoryMonitorOptions,
  type MemoryReport,
  type ProcessTreeMemory,
  type ProcessTreeWatch,
} from './memory/memory-monitor.js';
export { checkRequirements, type RequirementReport } from './plugin/check-requirements.js';
export { asActionArgument, parseActionArgs } from './plugin/parse-action-args.js';
export { PluginHost } from './plugin/plugin-host.js';
export {
  DEFAULT_ACTION_TIMEOUT_MS,
  DEFAULT_PLUGIN_START_TIMEOUT_MS,
  type PluginActionOptions,
  type PluginHostOptions,
} from './plugin/plugin-host-options.js';
export type { PluginProcessesOptions } from './plugin/plugin-processes.js';
export type { PluginRequirement } from './plugin/plugin-requirement.js';
export type {
  PluginAction,
  PluginActionContext,
  PluginContext,
  PluginHealth,
  PluginLogger,
  PluginRoute,
  RuntimePlugin,
} from './plugin/runtime-plugin.js';
export {
  BUILT_IN_PLUGIN_ACTIONS,
  BUILT_IN_RUNTIME_PLUGINS,
  loadRuntimePlugin,
  type RuntimePluginFactory,
  registerRuntimePlugin,
} from './plugin/runtime-plugin-registry.js';
export { runtimePluginUnavailableReason } from './plugin/runtime-plugin-unavailable-reason.js';
export {
  type CellResult,
  type CellStatus,
  type ExecuteOptions,
  KernelSession,
  type KernelSessionOptions,
} from './python/kernel-session.js';
export { createPythonPlugin, type PythonPluginOptions } from './python/python-plugin.js';
