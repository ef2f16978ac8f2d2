import { aoPluginModule } from './plugin/ao-plugin-module.js';

const plugin = aoPluginModule('clone');

/** The manifest of the `clone` workspace plugin (full clones; the name ao-core's built-in uses). */
export const manifest = plugin.manifest;

/**
 * Makes the plugin instance; `config` is an {@link AoWorkspacesOptions} record. Rejects a bad
 * config with `INVALID_CONFIG`.
 */
export const create = plugin.create;

export type { AoWorkspacesOptions } from './plugin/parse-ao-workspaces-options.js';
