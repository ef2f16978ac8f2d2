export {
  AGENT_SERVER_IMAGE_REPOSITORY,
  type AgentServerImageTagOptions,
  agentServerImageTag,
} from './image/agent-server-image-tag.js';
export {
  BASE_IMAGE_REPOSITORY,
  type BaseImageRecipe,
  baseImageTag,
} from './image/base-image-tag.js';
export {
  type BuildAgentServerImageOptions,
  buildAgentServerImage,
} from './image/build-agent-server-image.js';
export {
  BASE_IMAGE_PACKAGES,
  type BuildBaseImageOptions,
  buildBaseImage,
} from './image/build-base-image.js';
export type {
  BuiltImage,
  ImageProgressEvent,
  ImageProgressListener,
} from './image/image-progress.js';
export { type ReadAptMirrorOptions, readAptMirror } from './image/read-apt-mirror.js';
export { type ReadHostSuiteOptions, readHostSuite } from './image/read-host-suite.js';
export {
  type ResolveAgentServerImageOptions,
  resolveAgentServerImage,
} from './image/resolve-agent-server-image.js';
export type { ContainerConnection } from './workspace/choose-connection.js';
export { type CommitSnapshotOptions, commitSnapshot } from './workspace/commit-snapshot.js';
export type { ContainerSandbox } from './workspace/container-sandbox.js';
export {
  DOCKER_LABELS,
  DOCKER_SNAPSHOT_LABELS,
  LABEL_PREFIX,
} from './workspace/docker-labels.js';
export { type DockerSnapshot, SNAPSHOT_REPOSITORY } from './workspace/docker-snapshot.js';
export {
  type CreateDockerWorkspaceOptions,
  DockerWorkspace,
} from './workspace/docker-workspace.js';
export {
  DOCKER_CONNECTIONS,
  type DockerConnection,
  type DockerMount,
  type DockerResources,
  type DockerWorkspaceOptions,
  dockerWorkspaceOptionsSchema,
} from './workspace/docker-workspace-options.js';
export type {
  DockerSnapshotOptions,
  ForkDockerWorkspaceOptions,
} from './workspace/fork-options.js';
export {
  type ListDockerSnapshotsOptions,
  listDockerSnapshots,
} from './workspace/list-docker-snapshots.js';
export type { PublishedPort } from './workspace/published-port.js';
export {
  type ReapedContainer,
  type ReapOrphansOptions,
  reapOrphans,
} from './workspace/reap-orphans.js';
export {
  type DockerWorkspaceConfig,
  dockerWorkspaceConfigSchema,
  registerDockerWorkspaceType,
} from './workspace/register-docker-workspace-type.js';
export {
  type RemoveDockerSnapshotOptions,
  removeDockerSnapshot,
} from './workspace/remove-docker-snapshot.js';
export { type DockerConnectionOptions, describeDockerEngine } from './workspace/resolve-docker.js';

import { registerDockerWorkspaceType } from './workspace/register-docker-workspace-type.js';

// `createWorkspace({ kind: 'docker', ... })` works once this package is imported.
registerDockerWorkspaceType();
