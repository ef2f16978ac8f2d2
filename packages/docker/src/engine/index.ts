/**
 * Building blocks for launchers of agent-server containers other than `DockerWorkspace` (the
 * Runtime API's Docker and Swarm backends): the container spec, published ports, logs,
 * removal, state mapping, engine errors and snapshots, as `DockerWorkspace` uses them.
 *
 * @packageDocumentation
 */
export {
  AGENT_SERVER_PORT,
  type BuildContainerSpecOptions,
  buildContainerSpec,
  type ContainerEnvironmentOptions,
  type ContainerSessionKey,
  type ContainerSpecFields,
  containerEnvironment,
} from '../workspace/build-container-spec.js';
export { type CommitSnapshotOptions, commitSnapshot } from '../workspace/commit-snapshot.js';
export {
  type ContainerSandbox,
  containerSandboxSchema,
  SANDBOX_SECCOMP_PROFILE,
  sandboxHostConfig,
  sandboxServerFlags,
} from '../workspace/container-sandbox.js';
export { containerSandboxState } from '../workspace/container-sandbox-state.js';
export { type DockerErrorOptions, dockerError, dockerStatus } from '../workspace/docker-error.js';
export { DOCKER_SNAPSHOT_LABELS } from '../workspace/docker-labels.js';
export {
  type DockerSnapshot,
  listedSnapshot,
  SNAPSHOT_REPOSITORY,
} from '../workspace/docker-snapshot.js';
export {
  type PublishedPort,
  type ReadPublishedPortsOptions,
  readPublishedPorts,
} from '../workspace/published-port.js';
export {
  type LogSource,
  type ReadContainerLogsOptions,
  readContainerLogs,
} from '../workspace/read-container-logs.js';
export { type RemoveContainerOptions, removeContainer } from '../workspace/remove-container.js';
export {
  type RemoveDockerSnapshotOptions,
  removeDockerSnapshot,
} from '../workspace/remove-docker-snapshot.js';
export {
  type DockerConnectionOptions,
  describeDockerEngine,
  dialAddress,
  resolveDocker,
} from '../workspace/resolve-docker.js';
export {
  FREEZE_ATTEMPTS,
  type RetryFreezeOptions,
  retryFreeze,
} from '../workspace/retry-freeze.js';
