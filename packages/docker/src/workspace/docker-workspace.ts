import { randomBytes } from 'node:crypto';
import {
  type DescribedWorkspaceIdentity,
  type ReleaseSandboxOptions,
  type SandboxEndpoint,
  type SandboxHookOptions,
  type SandboxLogsOptions,
  type SandboxState,
  SandboxWorkspace,
  startOrClose,
  type WorkspaceCapabilities,
  WorkspaceError,
  type WorkspaceFork,
  type WorkspaceIdentityOptions,
} from '@agent-workspace/core';
import { parseWorkspaceOptions } from '@agent-workspace/core/internal';
import type Docker from 'dockerode';
import { AgentServerContainer } from './agent-server-container.js';
import type { ContainerConnection } from './choose-connection.js';
import { checkSnapshotName, commitSnapshot } from './commit-snapshot.js';
import { containerSandboxState } from './container-sandbox-state.js';
import { dockerError, dockerStatus } from './docker-error.js';
import type { DockerSnapshot } from './docker-snapshot.js';
import {
  type DockerWorkspaceOptions,
  dockerWorkspaceOptionsSchema,
  type ResolvedDockerWorkspaceOptions,
} from './docker-workspace-options.js';
import {
  checkForkOverrides,
  type DockerSnapshotOptions,
  type ForkDockerWorkspaceOptions,
  forkOptions,
} from './fork-options.js';
import { listWorkspaceContainers } from './list-workspace-containers.js';
import type { PublishedPort } from './published-port.js';
import { readContainerLogs } from './read-container-logs.js';
import { removeContainer } from './remove-container.js';
import { removeDockerSnapshot } from './remove-docker-snapshot.js';
import { resolveDocker } from './resolve-docker.js';
import { retryFreeze } from './retry-freeze.js';

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
 * Secure by default: on a local Linux engine the agent-server is reached at the container's
 * own address on its network (`connect: 'auto'`, see `DockerWorkspaceOptions.connect`),
 * reachable from the engine's host and containers on that network only, with no port
 * published; otherwise its port is published on `127.0.0.1` only, on a host port Docker picks
 * when it binds. Every workspace gets its own random session key (passed to the container as
 * `SESSION_API_KEY` and used by the client; a `sessionApiKey` is accepted beside it, never
 * instead). Every container carries `agent-workspace.*`
 * labels so {@link reapOrphans} can remove containers whose owner died.
 *
 * - `pause()` / `resume()` are `docker pause` / `docker unpause` (resume waits until alive; a
 *   paused container keeps its address); while paused every operation rejects at once with
 *   `WORKSPACE_PAUSED`.
 * - `close()` stops (2 s) and removes the container with its anonymous volumes, idempotently;
 *   with `keepAlive` it leaves the container running.
 * - A container that dies while in use makes operations reject with `SANDBOX_EXITED`, carrying
 *   its exit code and last log lines.
 * - `snapshot()` commits the container to a labelled image; `fork()` starts a new workspace
 *   from one, and `fromSnapshot` starts any workspace from one. A snapshot carries the
 *   container's filesystem (the working directory with its git history, packages installed
 *   anywhere), not its processes (the new container runs a fresh agent-server), not its bind
 *   mounts or volumes, and no value of its environment (neither session key nor `env`).
 * - With `deferInit` the agent-server starts dormant (`OH_DEFERRED_INIT=true`): start-up and
 *   `alive()` work, operations answer 503 until `initialize()` (see `SandboxWorkspace`).
 *
 * @example
 * ```ts
 * await using workspace = await DockerWorkspace.create({ image: await resolveAgentServerImage() });
 * const result = await workspace.executeCommand('uname -a');
 * ```
 */
export class DockerWorkspace
  extends SandboxWorkspace
  implements WorkspaceFork<ForkDockerWorkspaceOptions, DockerWorkspace>
{
  readonly kind = 'docker';
  /** Random id of this workspace; the container's `agent-workspace.workspace-id` label. */
  readonly workspaceId: string = randomBytes(16).toString('hex');
  /** The image the container runs: `image`, or the `fromSnapshot` reference or id. */
  readonly image: string;
  /** The snapshot the container starts from (the `fromSnapshot` option), if any. */
  readonly fromSnapshot: string | undefined;
  /** The container's name. */
  readonly containerName: string;
  readonly #options: ResolvedDockerWorkspaceOptions;
  readonly #docker: Docker;
  /** The container and how it is reached. */
  readonly #box: AgentServerContainer;
  /** Frozen by `docker pause`: a graceful stop could not be handled, so release kills. */
  #frozen = false;
  /** The snapshot `fork()` made this workspace from. */
  #forkedFrom: DockerSnapshot | undefined;

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
    // The workspace's own key, whatever else the server accepts: a request of this workspace's
    // that reaches another container (one given this container's address after its death) is
    // refused there, not run (see `DockerWorkspaceOptions.connect`).
    const apiKey = randomBytes(32).toString('hex');
    // The schema demands exactly one of them.
    this.image = (resolved.image ?? resolved.fromSnapshot) as string;
    this.fromSnapshot = resolved.fromSnapshot;
    this.containerName = resolved.name ?? `agent-workspace-${this.workspaceId.slice(0, 12)}`;
    this.#box = new AgentServerContainer({
      docker: this.#docker,
      options: resolved,
      image: this.image,
      workspaceId: this.workspaceId,
      apiKey,
      acceptedApiKey: resolved.sessionApiKey,
      containerName: this.containerName,
    });
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

  /** The agent-server's capabilities, and `fork` ({@link fork}, by a snapshot image). */
  override get capabilities(): WorkspaceCapabilities {
    return { ...super.capabilities, fork: true };
  }

  /**
   * The snapshot {@link fork} made this workspace from; `undefined` for a workspace not made by
   * `fork()`. Closing the fork keeps it: remove it with `removeDockerSnapshot(forkedFrom.id)`
   * once no workspace runs it, or start more workspaces from it (`fromSnapshot`).
   */
  get forkedFrom(): DockerSnapshot | undefined {
    return this.#forkedFrom;
  }

  /**
   * Commits the container to a snapshot image (`docker commit --pause`, so the files are read
   * from a frozen container), starting the workspace first if needed like any operation.
   *
   * The snapshot carries the container's own filesystem as it is: files under the working
   * directory, their git history and index, everything installed or written elsewhere in the
   * container. It does not carry running processes (a container started from it runs a fresh
   * agent-server), the content of bind mounts and volumes (outside the container's filesystem),
   * or the environment's values: neither the session key nor `env` / `forwardEnv` values are
   * persisted (the image's `Env` is its source image's, with the other names unset).
   *
   * The snapshot stays until `removeDockerSnapshot()`; `listDockerSnapshots()` lists it.
   * Rejects with `WORKSPACE_CLOSED` after `close()`, `INVALID_ARGUMENT` for a bad `name`,
   * `PROVISIONING_ERROR` when the engine cannot commit, `ABORTED` (no image left behind).
   *
   * @example
   * ```ts
   * await workspace.executeCommand('git init && npm install');
   * const snapshot = await workspace.snapshot({ name: 'deps installed' });
   * await using copy = await DockerWorkspace.create({ fromSnapshot: snapshot.reference });
   * ```
   */
  async snapshot({ name, signal }: DockerSnapshotOptions = {}): Promise<DockerSnapshot> {
    this.assertOpen();
    if (name !== undefined) checkSnapshotName(name);
    await this.start({ signal });
    this.assertOpen();
    return commitSnapshot({
      docker: this.#docker,
      containerId: this.#box.container!.id,
      sourceWorkspaceId: this.workspaceId,
      sourceImage: this.image,
      name: name ?? this.containerName,
      signal,
    });
  }

  /**
   * A copy of this workspace: {@link snapshot} then `DockerWorkspace.create` from it with this
   * workspace's options, a new container name and a new session key (`options` overrides any
   * of them but `image`, `fromSnapshot`, `docker` and `dockerOptions`). Resolves once the fork's
   * agent-server answers.
   *
   * The fork starts with this workspace's files and git state (see {@link snapshot}), not its
   * processes: it runs a fresh agent-server, and nothing this workspace had running runs there.
   * The two are independent from then on, except for `mounts`: the fork mounts the same bind
   * sources and volumes again, shared with the original, not copied. With `deferInit` the fork's
   * agent-server starts dormant as the original's did (call `initialize()` on it). The snapshot
   * is kept as the fork's {@link forkedFrom} (remove it once its forks are closed, or reuse it);
   * when the fork fails to start, the snapshot is removed and the error is the start's.
   *
   * @example
   * ```ts
   * await using fork = await workspace.fork();
   * await fork.executeCommand('git log --oneline'); // the original's history
   * ```
   */
  async fork(options: ForkDockerWorkspaceOptions = {}): Promise<DockerWorkspace> {
    const { signal, ...overrides } = options;
    checkForkOverrides(overrides);
    const snapshot = await this.snapshot({ signal });
    try {
      const fork = await DockerWorkspace.create(
        forkOptions(this.#options, overrides, snapshot, this.#docker),
        { signal },
      );
      fork.#forkedFrom = snapshot;
      return fork;
    } catch (error) {
      await removeDockerSnapshot(snapshot.id, { docker: this.#docker }).catch(() => {});
      throw error;
    }
  }

  /** The container's id, once created. */
  get containerId(): string | undefined {
    return this.#box.container?.id;
  }

  /**
   * How this process reaches the container, once started: `'bridge'` (its own network address)
   * or `'published-port'`; see `DockerWorkspaceOptions.connect`.
   */
  get connection(): ContainerConnection | undefined {
    return this.#box.ports.size > 0 ? this.#box.connection : undefined;
  }

  /**
   * Where each of the agent-server's 8000 and `extraPorts` is reachable, once started: the
   * published host ports, or with the bridge connection the container's address and the
   * container ports themselves (`port === containerPort`).
   */
  get publishedPorts(): PublishedPort[] {
    return [...this.#box.ports.values()];
  }

  /**
   * Where container port `containerPort` (8000 or one of `extraPorts`) is reachable from this
   * process: its published host port, or with the bridge connection the container's address.
   * Throws `INVALID_ARGUMENT` for a port that is not one of those (or before start).
   */
  publishedPort(containerPort: number): PublishedPort {
    const published = this.#box.ports.get(containerPort);
    if (!published) {
      const known = [...this.#box.ports.keys()].join(', ') || 'none yet: start the workspace first';
      throw new WorkspaceError({
        code: 'INVALID_ARGUMENT',
        message: `containerPort ${containerPort} is not published (published: ${known})`,
        details: { field: 'containerPort' },
      });
    }
    return published;
  }

  protected async createSandbox({ signal }: SandboxHookOptions): Promise<void> {
    await this.#box.create(signal);
  }

  protected async startSandbox({ signal }: SandboxHookOptions): Promise<SandboxEndpoint> {
    return this.#box.start(signal);
  }

  /** The agent-server's identity of its working directory, projected into a container. */
  protected override async describeIdentity(
    options: WorkspaceIdentityOptions = {},
  ): Promise<DescribedWorkspaceIdentity> {
    return { ...(await super.describeIdentity(options)), projectionKind: 'container' };
  }

  protected async sandboxState({ signal }: SandboxHookOptions): Promise<SandboxState> {
    const container = this.#box.container;
    if (!container) return { status: 'missing' };
    try {
      return containerSandboxState((await container.inspect({ abortSignal: signal })).State);
    } catch (error) {
      if (dockerStatus(error) === 404) return { status: 'missing' };
      throw dockerError(error, { docker: this.#docker, action: 'inspect the container' });
    }
  }

  protected async sandboxLogs({ signal, tailLines }: SandboxLogsOptions): Promise<string> {
    const container = this.#box.container;
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
      const container = this.#box.container!;
      await retryFreeze(() => container.pause({ abortSignal: signal }), { signal });
      this.#frozen = true;
    } catch (error) {
      throw dockerError(error, { docker: this.#docker, action: `pause ${this.containerName}` });
    }
  }

  protected override async resumeSandbox({ signal }: SandboxHookOptions): Promise<void> {
    try {
      await this.#box.container!.unpause({ abortSignal: signal });
      this.#frozen = false;
    } catch (error) {
      throw dockerError(error, { docker: this.#docker, action: `unpause ${this.containerName}` });
    }
  }

  protected async releaseSandbox({ signal, reason }: ReleaseSandboxOptions): Promise<void> {
    this.#box.stopWatch();
    if (reason === 'close' && this.#options.keepAlive) return;
    const docker = this.#docker;
    const ids = this.#box.container
      ? [this.#box.container.id]
      : await listWorkspaceContainers({ docker, workspaceId: this.workspaceId, signal });
    const stopTimeoutSeconds = this.#frozen ? 0 : STOP_TIMEOUT_SECONDS;
    await Promise.all(ids.map((id) => removeContainer({ docker, id, stopTimeoutSeconds, signal })));
  }
}
