export {
  type RemoteAPIWorkspaceConfig,
  RUNTIME_API_KEY_VARIABLE,
  registerRemoteApiWorkspaceType,
  remoteApiWorkspaceConfigSchema,
} from './client/register-remote-api-workspace-type.js';
export {
  type CreateRemoteAPIWorkspaceOptions,
  type ForkRemoteAPIWorkspaceOptions,
  RemoteAPIWorkspace,
} from './client/remote-api-workspace.js';
export {
  type RemoteAPIWorkspaceOptions,
  type RemoteApiVolume,
  remoteApiWorkspaceOptionsSchema,
} from './client/remote-api-workspace-options.js';
export {
  type RuntimeApiCallOptions,
  RuntimeApiClient,
  type RuntimeApiClientOptions,
  type TakeRuntimeSnapshotOptions,
} from './client/runtime-api-client.js';

import { registerRemoteApiWorkspaceType } from './client/register-remote-api-workspace-type.js';

// `createWorkspace({ kind: 'remote-api', ... })` works once this package is imported.
registerRemoteApiWorkspaceType();
