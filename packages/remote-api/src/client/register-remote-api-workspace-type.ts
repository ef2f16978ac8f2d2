import { getWorkspaceType, registerWorkspaceType, WorkspaceError } from '@agent-workspace/core';
import { z } from 'zod';
import { RemoteAPIWorkspace } from './remote-api-workspace.js';
import { remoteApiWorkspaceFields } from './remote-api-workspace-options.js';

/** The environment variable `runtimeApiKey` is read from when a config leaves it out. */
export const RUNTIME_API_KEY_VARIABLE = 'RUNTIME_API_KEY';

/**
 * JSON config of a Runtime API workspace for `createWorkspace()`:
 * `{ kind: 'remote-api', runtimeApiUrl, image, ... }`. `runtimeApiKey` may be left out, so a
 * config file need not hold the key: it is then read from `RUNTIME_API_KEY` when the workspace
 * is created.
 */
export const remoteApiWorkspaceConfigSchema = z.strictObject({
  kind: z.literal('remote-api'),
  ...remoteApiWorkspaceFields,
  runtimeApiKey: remoteApiWorkspaceFields.runtimeApiKey.optional(),
});

/** Config accepted by `createWorkspace({ kind: 'remote-api', ... })`. */
export type RemoteAPIWorkspaceConfig = z.input<typeof remoteApiWorkspaceConfigSchema>;

/**
 * Registers the `remote-api` kind so `createWorkspace({ kind: 'remote-api', runtimeApiUrl,
 * image })` builds a started {@link RemoteAPIWorkspace}; without `runtimeApiKey` in the config
 * the key comes from `RUNTIME_API_KEY` (neither: `INVALID_CONFIG` naming `runtimeApiKey`).
 * Importing `@agent-workspace/remote-api` calls it; calling it again (or from another copy of
 * the package) does nothing.
 */
export function registerRemoteApiWorkspaceType(): void {
  if (getWorkspaceType('remote-api')) return;
  registerWorkspaceType({
    kind: 'remote-api',
    schema: remoteApiWorkspaceConfigSchema,
    create: ({ kind: _kind, runtimeApiKey, ...options }) => {
      const key = runtimeApiKey ?? process.env[RUNTIME_API_KEY_VARIABLE];
      if (!key) {
        throw new WorkspaceError({
          code: 'INVALID_CONFIG',
          message: `invalid remote-api workspace config: runtimeApiKey: give it, or set ${RUNTIME_API_KEY_VARIABLE}`,
          details: { kind: 'remote-api', fields: ['runtimeApiKey'] },
        });
      }
      return RemoteAPIWorkspace.create({ ...options, runtimeApiKey: key });
    },
  });
}
