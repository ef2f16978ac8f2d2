import * as cloneModule from './clone.js';
import type { AoPluginModule } from './plugin/ao-workspace.js';
import * as worktreeModule from './worktree.js';

export type {
  AoPluginManifest,
  AoPluginModule,
  AoProjectConfig,
  AoWorkspace,
  AoWorkspaceCreateConfig,
  AoWorkspaceInfo,
} from './plugin/ao-workspace.js';
export {
  AO_REFUSAL_CODES,
  type CreateAoWorkspaceOptions,
  createAoWorkspace,
} from './plugin/create-ao-workspace.js';
export {
  type AoRefusal,
  type AoWarning,
  type AoWorkspacesOptions,
  parseAoWorkspacesOptions,
  type ResolvedAoWorkspacesOptions,
} from './plugin/parse-ao-workspaces-options.js';

/** The `worktree` workspace plugin module (linked worktrees), for `registry.register(worktree, config)`. */
export const worktree: AoPluginModule = {
  manifest: worktreeModule.manifest,
  create: worktreeModule.create,
};

/** The `clone` workspace plugin module (full clones), for `registry.register(clone, config)`. */
export const clone: AoPluginModule = {
  manifest: cloneModule.manifest,
  create: cloneModule.create,
};
