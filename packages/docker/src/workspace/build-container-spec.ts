import type Docker from 'dockerode';
import { sandboxHostConfig, sandboxServerFlags } from './container-sandbox.js';
import type { ResolvedDockerWorkspaceOptions } from './docker-workspace-options.js';

/** The variable that starts the agent-server dormant (OpenHands' `deferred_init`). */
export const DEFERRED_INIT_VARIABLE = 'OH_DEFERRED_INIT';

/** The port the agent-server listens on inside the container. */
export const AGENT_SERVER_PORT = 8000;

/** The fields of the workspace options a container spec is built from. */
export type ContainerSpecFields = Pick<
  ResolvedDockerWorkspaceOptions,
  | 'command'
  | 'user'
  | 'env'
  | 'forwardEnv'
  | 'mounts'
  | 'network'
  | 'resources'
  | 'extraPorts'
  | 'extraHosts'
  | 'publishAddress'
  | 'sandbox'
> & {
  /** The image to run. */
  image: string;
  /** The container's working directory; the image's when unset. */
  workingDir?: string | undefined;
  /** Start the agent-server dormant (see `DockerWorkspaceOptions.deferInit`). */
  deferInit?: boolean | undefined;
};

/**
 * How the agent-server learns its session key: the key itself (`SESSION_API_KEY`), or only its
 * SHA-256 in hex (`SESSION_API_KEY_SHA256`) when the launcher must not hand the key over.
 */
export type ContainerSessionKey = (
  | { apiKey: string; apiKeySha256?: undefined }
  | { apiKeySha256: string; apiKey?: undefined }
) & {
  /**
   * One more key the agent-server accepts (a `DockerWorkspace`'s `sessionApiKey`), set as
   * `OH_SESSION_API_KEYS_<n>` at the first index the rest of the environment leaves free.
   */
  acceptedApiKey?: string | undefined;
};

/** The prefix of the agent-server's indexed session keys (`OH_SESSION_API_KEYS_0`, ...). */
const INDEXED_KEY_PREFIX = 'OH_SESSION_API_KEYS_';

/** Options of {@link containerEnvironment}. */
export type ContainerEnvironmentOptions = {
  options: Pick<ContainerSpecFields, 'env' | 'forwardEnv' | 'deferInit'>;
  /** The environment to read `forwardEnv` from. */
  environment: NodeJS.ProcessEnv;
} & ContainerSessionKey;

/**
 * The `NAME=value` environment of an agent-server container: `forwardEnv` read from
 * `environment`, then `env`, then the session key (or its hash), the `acceptedApiKey` if any
 * and, with `deferInit`, `OH_DEFERRED_INIT=true` (the agent-server starts dormant), which
 * nothing overrides.
 */
export function containerEnvironment({
  options,
  environment,
  apiKey,
  apiKeySha256,
  acceptedApiKey,
}: ContainerEnvironmentOptions): string[] {
  const forwarded = (options.forwardEnv ?? []).flatMap((name) => {
    const value = environment[name];
    return value === undefined ? [] : [`${name}=${value}`];
  });
  const explicit = Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`);
  const key =
    apiKey !== undefined ? `SESSION_API_KEY=${apiKey}` : `SESSION_API_KEY_SHA256=${apiKeySha256}`;
  const accepted =
    acceptedApiKey === undefined
      ? []
      : [`${freeIndexedKey([...forwarded, ...explicit])}=${acceptedApiKey}`];
  const dormant = options.deferInit ? [`${DEFERRED_INIT_VARIABLE}=true`] : [];
  // With Docker's init as PID 1, an image's own tini must register as a subreaper.
  return ['TINI_SUBREAPER=1', ...forwarded, ...explicit, key, ...accepted, ...dormant];
}

/** The first `OH_SESSION_API_KEYS_<n>` that none of the `NAME=value` entries sets. */
function freeIndexedKey(entries: readonly string[]): string {
  const taken = new Set(entries.map((entry) => entry.slice(0, entry.indexOf('='))));
  let index = 0;
  while (taken.has(`${INDEXED_KEY_PREFIX}${index}`)) index += 1;
  return `${INDEXED_KEY_PREFIX}${index}`;
}

/** Options of {@link buildContainerSpec}. */
export type BuildContainerSpecOptions = {
  options: ContainerSpecFields;
  /** The container's labels (see `managedLabels`). */
  labels: Record<string, string>;
  /** The environment to read `forwardEnv` from. */
  environment: NodeJS.ProcessEnv;
  /**
   * Publish the ports on `publishAddress`; `false` when the container is reached at its own
   * network address (see `DockerWorkspaceOptions.connect`). @default true
   */
  publishPorts?: boolean | undefined;
} & ContainerSessionKey;

/**
 * The body of `POST /containers/create`: every port exposed, and unless `publishPorts` is
 * false published on `publishAddress` with
 * `HostPort: ''` so Docker picks a free one when it binds (no check-then-bind race), the
 * session key (or its hash) in the environment, an init process, mounts, network, extra
 * `/etc/hosts` entries and limits; with `sandbox`, the agent-server's sandbox flags after
 * `command` and the security options its bubblewrap needs.
 */
export function buildContainerSpec({
  options,
  labels,
  environment,
  publishPorts = true,
  ...sessionKey
}: BuildContainerSpecOptions): Docker.ContainerCreateOptions {
  const ports = [AGENT_SERVER_PORT, ...(options.extraPorts ?? [])].map((port) => `${port}/tcp`);
  const { memoryBytes, cpus, pidsLimit, diskBytes } = options.resources ?? {};
  const sandboxFlags = options.sandbox === undefined ? [] : sandboxServerFlags(options.sandbox);
  const command = [...(options.command ?? []), ...sandboxFlags];
  return {
    Image: options.image,
    ...(command.length > 0 && { Cmd: command }),
    ...(options.user && { User: options.user }),
    ...(options.workingDir && { WorkingDir: options.workingDir }),
    Env: containerEnvironment({ options, environment, ...sessionKey }),
    Labels: labels,
    ExposedPorts: Object.fromEntries(ports.map((port) => [port, {}])),
    HostConfig: {
      Init: true,
      ...(publishPorts && {
        PortBindings: Object.fromEntries(
          ports.map((port) => [port, [{ HostIp: options.publishAddress, HostPort: '' }]]),
        ),
      }),
      Mounts: (options.mounts ?? []).map((mount) => ({
        Type: mount.type,
        Source: mount.source,
        Target: mount.target,
        ReadOnly: mount.readOnly ?? false,
      })),
      ...(options.network && { NetworkMode: options.network }),
      ...(options.extraHosts?.length && { ExtraHosts: options.extraHosts }),
      ...(memoryBytes !== undefined && { Memory: memoryBytes, MemorySwap: memoryBytes }),
      ...(cpus !== undefined && { NanoCpus: Math.round(cpus * 1e9) }),
      ...(pidsLimit !== undefined && { PidsLimit: pidsLimit }),
      ...(diskBytes !== undefined && { StorageOpt: { size: String(diskBytes) } }),
      ...(options.sandbox !== undefined && sandboxHostConfig()),
    },
  };
}
