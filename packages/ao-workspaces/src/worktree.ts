import { aoPluginModule } from './plugin/ao-plugin-module.js';

const plugin = aoPluginModule('worktree');

/** The manifest of the `worktree` workspace plugin (linked worktrees; the name ao-core's built-in uses). */
export const manifest = plugin.manifest;

/**
 * Makes the plugin instance; `config` is an {@link AoWorkspacesOptions} record. Rejects a bad
 * config with `INVALID_CONFIG`.
 */
export const create = plugin.create;

export type { AoWorkspacesOptions } from './plugin/parse-ao-workspaces-options.js';
