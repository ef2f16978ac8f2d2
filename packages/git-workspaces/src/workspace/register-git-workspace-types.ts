import { getWorkspaceType, registerWorkspaceType } from '@agent-workspace/core';
import { z } from 'zod';
import { GitWorkspace } from './git-workspace.js';
import { gitWorkspaceOptionsSchema } from './git-workspace-options.js';

/** JSON config of a worktree workspace: `{ kind: 'worktree', project, sessionId, branch, ... }`. */
export const worktreeWorkspaceConfigSchema = gitWorkspaceOptionsSchema.extend({
  kind: z.literal('worktree'),
});

/** JSON config of a clone workspace: `{ kind: 'clone', project, sessionId, branch, ... }`. */
export const cloneWorkspaceConfigSchema = gitWorkspaceOptionsSchema.extend({
  kind: z.literal('clone'),
});

/** Config accepted by `createWorkspace({ kind: 'worktree' | 'clone', ... })`. */
export type GitWorkspaceConfig =
  | z.input<typeof worktreeWorkspaceConfigSchema>
  | z.input<typeof cloneWorkspaceConfigSchema>;

/**
 * Registers the `worktree` and `clone` kinds so `createWorkspace({ kind: 'worktree', project,
 * sessionId, branch })` builds a {@link GitWorkspace}. Importing `@agent-workspace/git-workspaces`
 * calls it; calling it again (or from another copy of the package) does nothing.
 */
export function registerGitWorkspaceTypes(): void {
  if (!getWorkspaceType('worktree')) {
    registerWorkspaceType({
      kind: 'worktree',
      schema: worktreeWorkspaceConfigSchema,
      create: (config) => GitWorkspace.create(config),
    });
  }
  if (!getWorkspaceType('clone')) {
    registerWorkspaceType({
      kind: 'clone',
      schema: cloneWorkspaceConfigSchema,
      create: (config) => GitWorkspace.create(config),
    });
  }
}
