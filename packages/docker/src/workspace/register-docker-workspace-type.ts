import { getWorkspaceType, registerWorkspaceType } from '@agent-workspace/core';
import { z } from 'zod';
import { DockerWorkspace } from './docker-workspace.js';
import { dockerWorkspaceFields } from './docker-workspace-options.js';

/** JSON config of a Docker workspace for `createWorkspace()`: `{ kind: 'docker', image, ... }`. */
export const dockerWorkspaceConfigSchema = z.strictObject({
  kind: z.literal('docker'),
  ...dockerWorkspaceFields,
});

/** Config accepted by `createWorkspace({ kind: 'docker', ... })`. */
export type DockerWorkspaceConfig = z.input<typeof dockerWorkspaceConfigSchema>;

/**
 * Registers the `docker` kind so `createWorkspace({ kind: 'docker', image })` builds a started
 * {@link DockerWorkspace}. Importing `@agent-workspace/docker` calls it; calling it again (or
 * from another copy of the package) does nothing.
 */
export function registerDockerWorkspaceType(): void {
  if (getWorkspaceType('docker')) return;
  registerWorkspaceType({
    kind: 'docker',
    schema: dockerWorkspaceConfigSchema,
    create: ({ kind: _kind, ...options }) => DockerWorkspace.create(options),
  });
}
