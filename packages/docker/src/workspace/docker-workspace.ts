import { randomBytes } from 'node:crypto';
import {
  abortedError,
  type DescribedWorkspaceIdentity,
  type ReleaseSandboxOptions,
  type SandboxEndpoint,
  type SandboxHookOptions,
  type SandboxLogsOptions,
  type SandboxState,
  SandboxWorkspace,
  startOrClose,
  WorkspaceError,
  type WorkspaceIdentityOptions,
} from '@agent-workspace/core';
import { parseWorkspaceOptions } from '@agent-workspace/core/internal';
import type Docker from 'dockerode';
import { AGENT_SERVER_PORT, buildContainerSpec } from './build-container-spec.js';
import { containerSandboxState } from './container-sandbox-state.js';
import { dockerError, dockerStatus } from './docker-error.js';
import { DOCKER_LABELS, managedLabels } from './docker-labels.js';
import {
  type DockerWorkspaceOptions,
  dockerWorkspaceOptionsSchema,
  type ResolvedDockerWorkspaceOptions,
} from './docker-workspace-options.js';
import { type PublishedPort, readPublishedPorts } from './published-port.js';
import { readContainerLogs } from './read-container-logs.js';
import { reapOrphans } from './reap-orphans.js';
import { removeContainer } from './remove-container.js';
import { resolveDocker } from './resolve-docker.js';
import { watchListeningLine } from './watch-listening-line.js';

/** Seconds `close()` gives the agent-server to stop before it is killed. */
const STOP_TIMEOUT_SECONDS = 2;

/** Options of {@link DockerWorkspace.create}. */
export interface CreateDockerWorkspaceOptions {
  /** Aborting removes what was created and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/**
 * A workspace in a Docker container running the agent-server, driven through dockerode.
 *
 * Secure by default: the agent-server port is published on `127.0.0.1` only, on a host port
 * Docker picks when it binds, and every workspace gets its own random session key (passed to
 * the container as `SESSION_API_KEY` and used by the client). Every container carries
 * `agent-workspace.*` labels so {@link reapOrphans} can remove containers whose owner died.
 *
 * - `pause()` / `resume()` are `docker pause` / `docker unpause` (resume waits until alive);
 *   while paused every operation rejects at once with `WORKSPACE_PAUSED`.
 * - `close()` stops (2 s) and removes the container with its anonymous volumes, idempotently;
 *   with `keepAlive` it leaves the container running.
 * - A container that dies while in use makes operations reject with `SANDBOX_EXITED`, carrying
 *   its exit code and last log lines.
 * - With `deferInit` the agent-server starts dormant (`OH_DEFERRED_INIT=true`): start-up and
 *   `alive()` work, operations answer 503 until `initialize()` (see `SandboxWorkspace`).
 *
 * @example
 * ```ts
 * await using workspace = await DockerWorkspace.create({ image: await resolveAgentServerImage() });
 * const result = await workspace.executeCommand('uname -a');
 * ```
 */
export class DockerWorkspace extends SandboxWorkspace {
  readonly kind = 'docker';
  /** Random id of this workspace; the container's `agent-workspace.workspace-id` label. */
  readonly workspaceId: string = randomBytes(16).toString('hex');
  /** The image the container runs. */
  readonly image: string;
  /** The container's name. */
  readonly containerName: string;
  readonly #options: ResolvedDockerWorkspaceOptions;
  readonly #docker: Docker;
  readonly #apiKey: string;
  #container: Docker.Container | undefined;
  #ports = new Map<number, PublishedPort>();
  /** Ends the watch of the container's output for the listening line, if one is open. */
  #stopWatch: (() => void) | undefined;
  /** Frozen by `docker pause`: a graceful stop could not be handled, so release kills. */
  #frozen = false;

  /**
   * Validates `options` (an `INVALID_CONFIG` error names each bad field) without touching Docker;
   * `start()` (or the first operation) creates the container. {@link DockerWorkspace.create}
   * does both.
   */
  constructor(options: DockerWorkspaceOptions) {
    const resolved = parseWorkspaceOptions(dockerWorkspaceOptionsSchema, options, {
      kind: 'docker',
    });
    super({
      workingDir: resolved.workingDir,
      startupTimeoutMs: resolved.startupTimeoutMs,
      lifecycleTimeoutMs: resolved.lifecycleTimeoutMs,
      reconnectTimeoutMs: resolved.reconnectTimeoutMs,
    });
    this.#options = resolved;
    this.#docker = resolveDocker(resolved);
    this.#apiKey = resolved.sessionApiKey ?? randomBytes(32).toString('hex');
    this.image = resolved.image;
    this.containerName = resolved.name ?? `agent-workspace-${this.workspaceId.slice(0, 12)}`;
  }

  /**
   * Creates a workspace and starts it: resolves once the agent-server in the new container
   * answers. Rejects (leaving nothing behind) with `INVALID_CONFIG`, `CONNECTION_ERROR` (no
   * engine), `PROVISIONING_ERROR` (missing image, port publishing, a container that exits or
   * never answers; with its logs) or `ABORTED`.
   */
  static async create(
    options: DockerWorkspaceOptions,
    { signal }: CreateDockerWorkspaceOptions = {},
  ): Promise<DockerWorkspace> {
    return startOrClose(new DockerWorkspace(options), { signal });
  }

  /** The container's id, once created. */
  get containerId(): string | undefined {
    return this.#container?.id;
  }

  /** Every published port (the agent-server's 8000 and `extraPorts`), once started. */
  get publishedPorts(): PublishedPort[] {
    return [...this.#ports.values()];
  }

  /**
   * Where container port `containerPort` (8000 or one of `extraPorts`) is reachable from this
   * process. Throws `INVALID_ARGUMENT` for a port that is not published (or before start).
   */
  publishedPort(containerPort: number): PublishedPort {
    const published = this.#ports.get(containerPort);
    if (!published) {
      const known = [...this.#ports.keys()].join(', ') || 'none yet: start the workspace first';
      throw new WorkspaceError({
        code: 'INVALID_ARGUMENT',
        message: `containerPort ${containerPort} is not published (published: ${known})`,
        details: { field: 'containerPort' },
      });
    }
    return published;
  }

  protected async createSandbox({ signal }: SandboxHookOptions): Promise<void> {
    const docker = this.#docker;
    const options = this.#options;
    const reaping = options.reapOrphans
      ? reapOrphans({ docker, signal }).catch(() => [])
      : Promise.resolve([]);
    const body = buildContainerSpec({
      options,
      labels: managedLabels({
        workspaceId: this.workspaceId,
        keepAlive: options.keepAlive,
        labels: options.labels,
      }),
      apiKey: this.#apiKey,
      environment: process.env,
    });
    const query = {
      name: this.containerName,
      ...(options.platform && { platform: options.platform }),
    };
    try {
      // `_query` / `_body` split the create options between the URL and the JSON body. Not
      // aborted mid-call: the engine would go on and make a container nobody knows of (a list
      // by label can run before it exists); a create takes milliseconds, the abort is checked
      // right after, and `close()` then removes what was made.
      this.#container = await docker.createContainer({
        _query: query,
        _body: body,
      } as unknown as Docker.ContainerCreateOptions);
      if (signal.aborted) throw abortedError(signal);
    } catch (error) {
      if (WorkspaceError.isInstance(error, 'ABORTED')) throw error;
      throw dockerError(error, {
        docker,
        action: `create a container from ${this.image}`,
        image: this.image,
      });
    } finally {
      await reaping;
    }
  }

  protected async startSandbox({ signal }: SandboxHookOptions): Promise<SandboxEndpoint> {
    const docker = this.#docker;
    const container = this.#container!;
    const publishing = `publishing ports on ${this.#options.publishAddress}`;
    try {
      await container.start({ abortSignal: signal });
    } catch (error) {
      throw dockerError(error, {
        docker,
        action: `start container ${this.containerName} (${publishing})`,
      });
    }
    // Opened now (it replays the output from the start): readiness is the server's own word.
    const listening = watchListeningLine({ container, signal });
    this.#stopWatch = listening.stop;
    let info: Docker.ContainerInspectInfo;
    try {
      info = await container.inspect({ abortSignal: signal });
    } catch (error) {
      throw dockerError(error, { docker, action: `inspect container ${this.containerName}` });
    }
    // Exited already: the template reports it with the logs.
    if (!info.State.Running)
      throw new Error(`container ${this.containerName} is ${info.State.Status}`);
    this.#ports = readPublishedPorts({
      docker,
      info,
      publishAddress: this.#options.publishAddress,
    });
    const server = this.#ports.get(AGENT_SERVER_PORT);
    if (!server) {
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `Docker did not publish port ${AGENT_SERVER_PORT}/tcp of container ${this.containerName} (${publishing}, network ${this.#options.network ?? 'bridge'})`,
        details: { ports: info.NetworkSettings.Ports },
      });
    }
    return { host: server.url, apiKey: this.#apiKey, ready: listening.ready };
  }

  /** The agent-server's identity of its working directory, projected into a container. */
  protected override async describeIdentity(
    options: WorkspaceIdentityOptions = {},
  ): Promise<DescribedWorkspaceIdentity> {
    return { ...(await super.describeIdentity(options)), projectionKind: 'container' };
  }

  protected async sandboxState({ signal }: SandboxHookOptions): Promise<SandboxState> {
    const container = this.#container;
    if (!container) return { status: 'missing' };
    try {
      return containerSandboxState((await container.inspect({ abortSignal: signal })).State);
    } catch (error) {
      if (dockerStatus(error) === 404) return { status: 'missing' };
      throw dockerError(error, { docker: this.#docker, action: 'inspect the container' });
    }
  }

  protected async sandboxLogs({ signal, tailLines }: SandboxLogsOptions): Promise<string> {
    const container = this.#container;
    if (!container) return '';
    try {
      return await readContainerLogs({ docker: this.#docker, container, tailLines, signal });
    } catch (error) {
      if (dockerStatus(error) === 404) return '';
      throw dockerError(error, { docker: this.#docker, action: 'read the container logs' });
    }
  }

  protected override async pauseSandbox({ signal }: SandboxHookOptions): Promise<void> {
    try {
      await this.#container!.pause({ abortSignal: signal });
      this.#frozen = true;
    } catch (error) {
      throw dockerError(error, { docker: this.#docker, action: `pause ${this.containerName}` });
    }
  }

  protected override async resumeSandbox({ signal }: SandboxHookOptions): Promise<void> {
    try {
      await this.#container!.unpause({ abortSignal: signal });
      this.#frozen = false;
    } catch (error) {
      throw dockerError(error, { docker: this.#docker, action: `unpause ${this.containerName}` });
    }
  }

  protected async releaseSandbox({ signal, reason }: ReleaseSandboxOptions): Promise<void> {
    this.#stopWatch?.();
    if (reason === 'close' && this.#options.keepAlive) return;
    const docker = this.#docker;
    const ids = this.#container ? [this.#container.id] : await this.#containersByLabel(signal);
    const stopTimeoutSeconds = this.#frozen ? 0 : STOP_TIMEOUT_SECONDS;
    await Promise.all(ids.map((id) => removeContainer({ docker, id, stopTimeoutSeconds, signal })));
  }

  /** Containers labelled with this workspace's id (a create cut short may have made one). */
  async #containersByLabel(signal: AbortSignal): Promise<string[]> {
    try {
      const containers = await this.#docker.listContainers({
        all: true,
        filters: { label: [`${DOCKER_LABELS.workspaceId}=${this.workspaceId}`] },
        abortSignal: signal,
      });
      return containers.map((container) => container.Id);
    } catch (error) {
      throw dockerError(error, { docker: this.#docker, action: 'list containers' });
    }
  }
}
