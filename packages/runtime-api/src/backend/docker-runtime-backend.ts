import {
  buildContainerSpec,
  type DockerConnectionOptions,
  dockerStatus,
  readContainerLogs,
  removeContainer,
  resolveDocker,
} from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import { containerSession } from './container-session.js';
import { DockerRuntimeSnapshots } from './docker-runtime-snapshots.js';
import { DockerSessionPauses } from './docker-session-pauses.js';
import { DockerWarmSandboxes } from './docker-warm-sandboxes.js';
import { engineCall, labelFilter } from './engine-call.js';
import { ensureSharedVolumes } from './ensure-shared-volumes.js';
import { LabelledRuntimeBackend } from './labelled-runtime-backend.js';
import type {
  BackendCallOptions,
  BackendSession,
  RuntimeBackend,
  SessionSpec,
  WarmSandboxBackend,
  WarmSandboxSpec,
} from './runtime-backend.js';
import type { RuntimeSnapshotBackend } from './runtime-snapshot-backend.js';
import { isWarmContainerName, sessionContainerName } from './session-container-name.js';
import { sessionExists, sessionNotFound, validateSessionSpec } from './session-errors.js';
import { RUNTIME_LABELS } from './session-labels.js';

/** Seconds `stop` gives the agent-server to exit before it is killed. */
const STOP_TIMEOUT_SECONDS = 2;

/** Options of {@link DockerRuntimeBackend}. */
export interface DockerRuntimeBackendOptions extends DockerConnectionOptions {
  /** Label namespace of this backend's sessions. @default 'default' */
  namespace?: string | undefined;
  /**
   * Host address the agent-server port is published on. @default '127.0.0.1'. Publishing on
   * all interfaces (`0.0.0.0`) lets other machines reach sessions (the session key guards them).
   */
  publishAddress?: string | undefined;
  /** Network the containers join (bridge or user-defined); default Docker's bridge. */
  network?: string | undefined;
}

/** A session's (or warm sandbox's) container as the engine reports it. */
export interface FoundContainer {
  id: string;
  info: Docker.ContainerInspectInfo;
}

/**
 * Runtime API sessions as containers on one Docker engine: one container per session, named
 * {@link sessionContainerName} (so the engine refuses a second start of a session id), carrying
 * the session's labels (the only record of it), with the agent-server's port 8000 published on
 * `publishAddress` on a host port Docker picks. The sandbox gets only the SHA-256 of the session
 * key (`SESSION_API_KEY_SHA256`).
 *
 * - Warm pool sandboxes ({@link DockerWarmSandboxes}) are containers named after their runtime
 *   id, without a session id label; claiming one renames it to the session's container name,
 *   from which its session id is read back. Unclaimed ones are never answered as sessions.
 *
 * - `pause` / `resume` are `docker pause` / `docker unpause`: processes are frozen, files and the
 *   URL stay. A pause is also recorded in the engine ({@link DockerSessionPauses}): when the engine
 *   restarts, the frozen container comes back exited, and stays `paused`; `resume` then starts it
 *   again with its files (not its processes) on a new host port.
 * - `stop` stops the container (2 s, at once when paused) and removes it with its anonymous
 *   volumes and its pause marker; shared named volumes (`volumes` of `/start`) stay.
 * - A container that exited is `stopped` with `engineState: 'failed'` and its exit code.
 */
export class DockerRuntimeBackend extends LabelledRuntimeBackend implements RuntimeBackend {
  readonly kind = 'docker';
  readonly sandboxes = true;
  readonly namespace: string;
  protected readonly cleanupTimeoutMs = 15_000;
  readonly #docker: Docker;
  readonly #publishAddress: string;
  readonly #network: string | undefined;
  readonly #pauses: DockerSessionPauses;
  /** The warm pool side: start, list, claim and remove warm sandboxes. */
  readonly warmSandboxes: WarmSandboxBackend;
  /** Snapshots of sessions: commit, list and remove them ({@link DockerRuntimeSnapshots}). */
  readonly snapshots: RuntimeSnapshotBackend;

  /** Connects lazily: nothing is asked of the engine until the first call. */
  constructor(options: DockerRuntimeBackendOptions = {}) {
    super();
    this.namespace = options.namespace ?? 'default';
    this.#docker = resolveDocker(options);
    this.#publishAddress = options.publishAddress ?? '127.0.0.1';
    this.#network = options.network;
    this.#pauses = new DockerSessionPauses({
      docker: this.#docker,
      namespace: this.namespace,
      inspect: (id, signal) => this.#inspect(id, signal),
      session: (info, markedPaused) => this.#session(info, markedPaused),
    });
    this.warmSandboxes = new DockerWarmSandboxes({
      docker: this.#docker,
      namespace: this.namespace,
      startContainer: (name, spec, signal) => this.#startContainer(name, spec, signal),
      find: (labels, signal, named) => this.#find(labels, signal, named),
      inspect: (id, signal) => this.#inspect(id, signal),
      session: (info) => this.#session(info),
    });
    this.snapshots = new DockerRuntimeSnapshots({
      docker: this.#docker,
      namespace: this.namespace,
      find: (labels, signal) => this.#find(labels, signal),
      session: (info) => this.#session(info),
    });
  }

  /**
   * Creates and starts the session's container. `ALREADY_EXISTS` when the session id is taken,
   * `PROVISIONING_ERROR` when the image is missing (saying how to build it) or the engine refuses,
   * `ABORTED`; what this call created is removed again when it fails.
   */
  async start(spec: SessionSpec, { signal }: BackendCallOptions = {}): Promise<BackendSession> {
    validateSessionSpec(spec, this.namespace);
    const name = sessionContainerName(this.namespace, spec.sessionId);
    return this.#session(await this.#startContainer(name, spec, signal));
  }

  /**
   * Creates and starts a container named `name` for `spec`, answering it inspected; removes what
   * it created when it fails (`ALREADY_EXISTS` for a name in use is another's and stays).
   */
  async #startContainer(
    name: string,
    spec: SessionSpec | WarmSandboxSpec,
    signal: AbortSignal | undefined,
  ): Promise<Docker.ContainerInspectInfo> {
    const docker = this.#docker;
    const body = buildContainerSpec({
      options: {
        image: spec.fromSnapshot ?? spec.image,
        env: spec.environment,
        workingDir: spec.workingDir,
        user: spec.runAsUser === undefined ? undefined : String(spec.runAsUser),
        network: this.#network,
        resources: spec.resources,
        publishAddress: this.#publishAddress,
        sandbox: spec.sandbox,
        mounts: spec.volumes?.map(({ type, source, target, readOnly }) => ({
          type,
          source,
          target,
          readOnly,
        })),
      },
      labels: spec.labels,
      environment: {},
      apiKeySha256: spec.sessionKeyHash,
    });
    return this.releasingFailedStart(spec.runtimeId, async () => {
      await ensureSharedVolumes({ docker, volumes: spec.volumes ?? [], signal });
      const container = await this.#create(spec, name, body, signal);
      await engineCall({ docker, action: `start container ${name}`, signal }, () =>
        container.start({ abortSignal: signal }),
      );
      const info = await this.#inspect(container.id, signal);
      if (!info) throw sessionNotFound(spec.runtimeId, this.namespace);
      return info;
    });
  }

  /** The session's container by its session id, or `undefined`. */
  async get(
    sessionId: string,
    { signal }: BackendCallOptions = {},
  ): Promise<BackendSession | undefined> {
    const named = await this.#inspect(sessionContainerName(this.namespace, sessionId), signal);
    if (named?.Config.Labels?.[RUNTIME_LABELS.namespace] === this.namespace) {
      return this.#pauses.session(named, signal);
    }
    // A session started before containers were named after their session id.
    const [found] = await this.#find({ [RUNTIME_LABELS.sessionId]: sessionId }, signal);
    return found && this.#pauses.session(found.info, signal);
  }

  /**
   * `docker pause`, recorded in the engine (see {@link DockerSessionPauses}); a paused session is
   * left as it is. `NOT_FOUND` for an unknown runtime id.
   */
  async pause(runtimeId: string, { signal }: BackendCallOptions = {}): Promise<BackendSession> {
    return this.#pauses.pause(await this.#one(runtimeId, signal), signal);
  }

  /**
   * `docker unpause`, or `docker start` for a paused session an engine restart stopped (files
   * kept, processes afresh, a new host port); a running session is left as it is.
   * `NOT_FOUND` for an unknown runtime id.
   */
  async resume(runtimeId: string, { signal }: BackendCallOptions = {}): Promise<BackendSession> {
    return this.#pauses.resume(await this.#one(runtimeId, signal), signal);
  }

  /**
   * Stops and removes the session's container with its anonymous volumes and its pause marker
   * (shared named volumes stay); `false` when there was none.
   */
  async stop(runtimeId: string, { signal }: BackendCallOptions = {}): Promise<boolean> {
    const found = await this.#find({ [RUNTIME_LABELS.runtimeId]: runtimeId }, signal);
    await Promise.all(
      found.map(({ id, info }) =>
        removeContainer({
          docker: this.#docker,
          id,
          // A frozen agent-server cannot handle a graceful stop.
          stopTimeoutSeconds: info.State.Paused ? 0 : STOP_TIMEOUT_SECONDS,
          signal,
        }),
      ),
    );
    // Only a paused session has a marker (or one whose container is gone already).
    const mayBeMarked =
      found.length === 0 ||
      found.some(({ info }) => info.State.Status !== 'running' || info.State.Paused);
    if (mayBeMarked) await this.#pauses.forget(runtimeId, signal);
    return found.length > 0;
  }

  /** The container's last `tailLines` lines. `NOT_FOUND` for an unknown runtime id. */
  async logs(
    runtimeId: string,
    { signal, tailLines }: BackendCallOptions & { tailLines: number },
  ): Promise<string> {
    const found = await this.#one(runtimeId, signal);
    const docker = this.#docker;
    return engineCall({ docker, action: `read the logs of container ${found.id}`, signal }, () =>
      readContainerLogs({ docker, container: docker.getContainer(found.id), tailLines, signal }),
    );
  }

  /** Creates the session's container; `ALREADY_EXISTS` when the engine has one of that name. */
  async #create(
    spec: SessionSpec | WarmSandboxSpec,
    name: string,
    body: Docker.ContainerCreateOptions,
    signal: AbortSignal | undefined,
  ): Promise<Docker.Container> {
    const docker = this.#docker;
    const action = `create container ${name} from ${spec.image}`;
    return engineCall({ docker, action, image: spec.image, signal }, async () => {
      try {
        // `_query` / `_body` split the create options between the URL and the JSON body.
        return await docker.createContainer({
          _query: { name },
          _body: body,
          abortSignal: signal,
        } as unknown as Docker.ContainerCreateOptions);
      } catch (error) {
        if (dockerStatus(error) !== 409) throw error;
        throw sessionExists('sessionId' in spec ? spec.sessionId : name, this.namespace, error);
      }
    });
  }

  /** The one session container of `runtimeId`, or `NOT_FOUND`. */
  async #one(runtimeId: string, signal: AbortSignal | undefined): Promise<FoundContainer> {
    const [found] = await this.#findSessions({ [RUNTIME_LABELS.runtimeId]: runtimeId }, signal);
    if (!found) throw sessionNotFound(runtimeId, this.namespace);
    return found;
  }

  /** Session containers with `labels` (unclaimed warm sandboxes are none). */
  protected async sessionsLabelled(
    labels: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<BackendSession[]> {
    const [found, paused] = await Promise.all([
      this.#findSessions(labels, signal),
      this.#pauses.paused(signal, labels[RUNTIME_LABELS.runtimeId]),
    ]);
    return found.map(({ info }) =>
      this.#session(info, paused.has(info.Config.Labels?.[RUNTIME_LABELS.runtimeId] ?? '')),
    );
  }

  /** `#find` without unclaimed warm sandboxes: what has a session id is a session. */
  async #findSessions(
    labels: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<FoundContainer[]> {
    const found = await this.#find(labels, signal, (name) => !isWarmContainerName(name));
    return found.filter(({ info }) => this.#session(info).labels[RUNTIME_LABELS.sessionId]);
  }

  /**
   * This namespace's containers with `labels` (and a name `named` accepts), inspected; ones
   * removed meanwhile are left out.
   */
  async #find(
    labels: Record<string, string>,
    signal: AbortSignal | undefined,
    named: (name: string) => boolean = () => true,
  ): Promise<FoundContainer[]> {
    const docker = this.#docker;
    const filters = labelFilter({ [RUNTIME_LABELS.namespace]: this.namespace, ...labels });
    const containers = await engineCall({ docker, action: 'list containers', signal }, () =>
      docker.listContainers({ all: true, filters: { label: filters }, abortSignal: signal }),
    );
    const found = await Promise.all(
      containers
        .filter(({ Names }) => Names.some(named))
        .map(async ({ Id }) => {
          const info = await this.#inspect(Id, signal);
          return info && { id: Id, info };
        }),
    );
    return found.filter((entry) => entry !== undefined);
  }

  /** `docker inspect`, or `undefined` when the container is gone. */
  async #inspect(
    id: string,
    signal: AbortSignal | undefined,
  ): Promise<Docker.ContainerInspectInfo | undefined> {
    const docker = this.#docker;
    return engineCall({ docker, action: `inspect container ${id}`, signal }, async () => {
      try {
        return await docker.getContainer(id).inspect({ abortSignal: signal });
      } catch (error) {
        if (dockerStatus(error) === 404) return undefined;
        throw error;
      }
    });
  }

  /**
   * The engine's view of a session from its container (a claimed one's id from its name);
   * `markedPaused` when it has a pause marker.
   */
  #session(info: Docker.ContainerInspectInfo, markedPaused = false): BackendSession {
    const options = { docker: this.#docker, namespace: this.namespace, markedPaused };
    return containerSession(info, { ...options, publishAddress: this.#publishAddress });
  }
}
