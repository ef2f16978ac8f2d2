import type Docker from 'dockerode';
import type { ResolvedDockerWorkspaceOptions } from './docker-workspace-options.js';

/** The port the agent-server listens on inside the container. */
export const AGENT_SERVER_PORT = 8000;

/** Options of {@link buildContainerSpec}. */
export interface BuildContainerSpecOptions {
  options: ResolvedDockerWorkspaceOptions;
  /** The container's labels (see `managedLabels`). */
  labels: Record<string, string>;
  /** The agent-server's session key, passed as `SESSION_API_KEY`. */
  apiKey: string;
  /** The environment to read `forwardEnv` from. */
  environment: NodeJS.ProcessEnv;
}

/**
 * The body of `POST /containers/create`: every port published on `publishAddress` with
 * `HostPort: ''` so Docker picks a free one when it binds (no check-then-bind race), the
 * session key in the environment, an init process, mounts, network and limits.
 */
export function buildContainerSpec({
  options,
  labels,
  apiKey,
  environment,
}: BuildContainerSpecOptions): Docker.ContainerCreateOptions {
  const ports = [AGENT_SERVER_PORT, ...(options.extraPorts ?? [])].map((port) => `${port}/tcp`);
  const forwarded = (options.forwardEnv ?? []).flatMap((name) => {
    const value = environment[name];
    return value === undefined ? [] : [`${name}=${value}`];
  });
  const explicit = Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`);
  const { memoryBytes, cpus, pidsLimit } = options.resources ?? {};
  return {
    Image: options.image,
    ...(options.command && { Cmd: options.command }),
    ...(options.user && { User: options.user }),
    WorkingDir: options.workingDir,
    // With Docker's init as PID 1, an image's own tini must register as a subreaper.
    Env: ['TINI_SUBREAPER=1', ...forwarded, ...explicit, `SESSION_API_KEY=${apiKey}`],
    Labels: labels,
    ExposedPorts: Object.fromEntries(ports.map((port) => [port, {}])),
    HostConfig: {
      Init: true,
      PortBindings: Object.fromEntries(
        ports.map((port) => [port, [{ HostIp: options.publishAddress, HostPort: '' }]]),
      ),
      Mounts: (options.mounts ?? []).map((mount) => ({
        Type: mount.type,
        Source: mount.source,
        Target: mount.target,
        ReadOnly: mount.readOnly ?? false,
      })),
      ...(options.network && { NetworkMode: options.network }),
      ...(memoryBytes !== undefined && { Memory: memoryBytes, MemorySwap: memoryBytes }),
      ...(cpus !== undefined && { NanoCpus: Math.round(cpus * 1e9) }),
      ...(pidsLimit !== undefined && { PidsLimit: pidsLimit }),
    },
  };
}
