import { registerWorkspaceType } from '@agent-workspace/core';
import { ScratchWorkspace } from './scratch-workspace.js';
import { scratchWorkspaceConfigSchema } from './scratch-workspace-config.js';

/**
 * Registers the `scratch` kind, so `createWorkspace({ kind: 'scratch', name })` builds a
 * {@link ScratchWorkspace}. Call it once, before the first `createWorkspace` of that kind (a
 * second call throws `DUPLICATE_WORKSPACE_KIND`). Returns the function that unregisters it.
 */
export function registerScratchWorkspaceType(): () => void {
  return registerWorkspaceType({
    kind: 'scratch',
    schema: scratchWorkspaceConfigSchema,
    // The schema has run: `config` is validated and has its defaults.
    create: ({ kind: _kind, ...options }) => ScratchWorkspace.create(options),
  });
}
