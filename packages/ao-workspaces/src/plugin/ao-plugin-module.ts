import type { AoPluginModule } from './ao-workspace.js';
import { createAoWorkspaceOfKind } from './create-ao-workspace.js';
import type { AoWorkspacesOptions } from './parse-ao-workspaces-options.js';

/**
 * The ao-core plugin module of one kind: a manifest named as ao-core's built-in plugin of that
 * kind, and a `create(config)` taking an unchecked {@link AoWorkspacesOptions} record (a bad
 * one throws `INVALID_CONFIG`).
 */
export function aoPluginModule(kind: 'worktree' | 'clone'): AoPluginModule {
  return {
    manifest: {
      name: kind,
      slot: 'workspace',
      description: `Workspace plugin: git ${kind === 'worktree' ? 'worktrees' : 'clones'} (agent-workspace git-workspaces)`,
      version: '0.1.0',
    },
    create: (config) => createAoWorkspaceOfKind(kind, config),
  };
}
