import type { PluginLogger } from './runtime-plugin.js';

/** A logger that drops everything: the default of hosts given none. */
export const silentPluginLogger: PluginLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};
