import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import {
  type DockerConnectionOptions,
  dockerStatus,
  readContainerLogs,
  resolveDocker,
} from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import { engineCall, labelFilter } from './engine-call.js';
import { type FoundService, findSwarmServices } from './find-swarm-services.js';
import { LabelledRuntimeBackend } from './labelled-runtime-backend.js';
import { removeLabelledVolumes } from './remove-labelled-volumes.js';
import type {
  BackendCallOptions,
  BackendSession,
  RuntimeBackend,
  SessionSpec,
} from './runtime-backend.js';
import { scaleSwarmService } from './scale-swarm-service.js';
import { sessionExists, sessionNotFound, validateSessionSpec } from './session-errors.js';
import { RUNTIME_LABELS, sessionObjectName } from './session-labels.js';
import { swarmServiceSpec } from './swarm-service-spec.js';
import { type SwarmNode, swarmTaskSession } from './swarm-task-session.js';

/** Options of {@link SwarmRuntimeBackend}. */
export interface SwarmRuntimeBackendOptions extends DockerConnectionOptions {
  /** Label namespace of this backend's sessions. @default 'default' */
  namespace?: string | undefined;
  /** Overlay network (attachable or not) the sessions' tasks join; default none. */
  network?: string | undefined;
  /** Swarm placement constraints of every session, e.g. `['node.labels.sandboxes==true']`. */
  placementConstraints?: string[] | undefined;
  /**
   * Reserve each session's CPU and memory limits on its node, so the scheduler spreads sessions
   * over nodes and never overcommits one. @default true
   */
  reserveResources?: boolean | undefined;
  /**
   * Address a node's published ports are reached at, by node id or hostname; default the
   * node's own `Status.Addr`.
   */
  nodeAddresses?: Record<string, string> | undefined;
}

/**
 * Runtime API sessions as Docker Swarm services: one service per session, named
 * {@link sessionObjectName} (so the swarm refuses a second start of a session id), with one
 * replica that is never restarted, the session's labels on the service, its task's container
 * and its volume (the only record of a session), and CPU, memory and process limits (reserved
 * too, by default). The sandbox gets only the SHA-256 of the session key.
 *
 * - The agent-server port is published in host mode on a port the engine picks, on every
 *   interface of the node running the task; the URL is that node's address and port.
 * - The working directory is a named volume labelled like the service, so files survive pause.
 * - `pause` pins the service to the node its task ran on (where the volume is), scales it to 0
 *   and waits until the task is gone; `resume` scales it to 1, which starts a new task. Its host
 *   port is the engine's choice again (the same one here, when it is still free), so the URL
 *   may change: the server and clients read it again after a resume.
 * - `stop` removes the service, then its volume on this engine. On a multi-node swarm a volume
 *   on another node stays: prune it there by label.
 *
 * No registry is involved on the client side: no credentials are sent and the image is not
 * resolved to a digest, so a local image works; each node runs the image it has (its engine
 * may try to pull the tag and falls back to the local image when that fails).
 */
export class SwarmRuntimeBackend extends LabelledRuntimeBackend implements RuntimeBackend {
  readonly kind = 'swarm';
  /** A service cannot unmask `/proc` or take a seccomp profile (engine API 1.41). */
  readonly sandboxes = false;
  readonly namespace: string;
  protected readonly cleanupTimeoutMs = 30_000;
  readonly #docker: Docker;
  readonly #network: string | undefined;
  readonly #constraints: string[];
  readonly #reserve: boolean;
  readonly #nodeAddresses: Record<string, string>;

  /** Connects lazily: nothing is asked of the engine (a swarm manager) until the first call. */
  constructor(options: SwarmRuntimeBackendOptions = {}) {
    super();
    this.namespace = options.namespace ?? 'default';
    this.#docker = resolveDocker(options);
    this.#network = options.network;
    this.#constraints = options.placementConstraints ?? [];
    this.#reserve = options.reserveResources ?? true;
    this.#nodeAddresses = options.nodeAddresses ?? {};
  }

  /**
   * Creates the session's service. `ALREADY_EXISTS` when the session id is taken, `ABORTED`; what
   * this call created is removed again when it fails. A missing image shows later, as a
   * `failed` session whose message says so.
   */
  async start(spec: SessionSpec, { signal }: BackendCallOptions = {}): Promise<BackendSession> {
    validateSessionSpec(spec, this.namespace);
    if (spec.sandbox !== undefined) {
      throw invalidArgument(
        'sandbox',
        'the swarm backend cannot run a sandboxed agent-server: a service cannot take the seccomp profile and unmasked /proc its bubblewrap needs',
      );
    }
    const name = sessionObjectName(this.namespace, spec.sessionId);
    const options: Docker.CreateServiceOptions = {
      ...swarmServiceSpec({
        spec,
        name,
        network: this.#network,
        constraints: this.#constraints,
        reserve: this.#reserve,
      }),
      abortSignal: signal,
    };
    return this.releasingFailedStart(spec.runtimeId, async () => {
      await this.#create(spec, options, signal);
      const session = await this.get(spec.sessionId, { signal });
      if (session) return session;
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `service ${name} of session ${spec.sessionId} disappeared right after it was created`,
      });
    });
  }

  /** The session's service by its session id, or `undefined`. */
  async get(
    sessionId: string,
    { signal }: BackendCallOptions = {},
  ): Promise<BackendSession | undefined> {
    return (await this.sessionsLabelled({ [RUNTIME_LABELS.sessionId]: sessionId }, signal))[0];
  }

  /**
   * Pins the service to the node its task ran on (its volume is there), scales it to 0 and waits
   * (bounded) until the swarm has shut the task down and deleted it; a paused session is only
   * waited for. `NOT_FOUND` for an unknown runtime id.
   */
  async pause(runtimeId: string, { signal }: BackendCallOptions = {}): Promise<BackendSession> {
    return this.#scale(runtimeId, 0, signal);
  }

  /**
   * Scales the service back to 1 (once the paused task is gone): a new task starts on a host port
   * the engine picks, so the URL may change. A running session is left as it is. `NOT_FOUND` for
   * an unknown runtime id.
   */
  async resume(runtimeId: string, { signal }: BackendCallOptions = {}): Promise<BackendSession> {
    return this.#scale(runtimeId, 1, signal);
  }

  /**
   * Removes the session's service, then its volume on this engine once the task's container let
   * go of it (bounded); `false` when neither existed.
   */
  async stop(runtimeId: string, { signal }: BackendCallOptions = {}): Promise<boolean> {
    const docker = this.#docker;
    const labels = labelFilter({
      [RUNTIME_LABELS.namespace]: this.namespace,
      [RUNTIME_LABELS.runtimeId]: runtimeId,
    });
    const services = await engineCall({ docker, action: 'list services', signal }, () =>
      docker.listServices({ filters: { label: labels }, abortSignal: signal }),
    );
    for (const { ID } of services) {
      await engineCall({ docker, action: `remove service ${ID}`, signal }, async () => {
        try {
          await docker.getService(ID).remove({ abortSignal: signal });
        } catch (error) {
          if (dockerStatus(error) !== 404) throw error;
        }
      });
    }
    const removedVolumes = await removeLabelledVolumes({ docker, labels, signal });
    return services.length > 0 || removedVolumes > 0;
  }

  /** The last `tailLines` lines of the service's tasks. `NOT_FOUND` for an unknown runtime id. */
  async logs(
    runtimeId: string,
    { signal, tailLines }: BackendCallOptions & { tailLines: number },
  ): Promise<string> {
    const { service } = await this.#one(runtimeId, signal);
    const docker = this.#docker;
    return engineCall({ docker, action: `read the logs of service ${service.ID}`, signal }, () =>
      readContainerLogs({ docker, container: docker.getService(service.ID), tailLines, signal }),
    );
  }

  /** Creates the session's service; `ALREADY_EXISTS` when the swarm has one of that name. */
  async #create(
    spec: SessionSpec,
    options: Docker.CreateServiceOptions,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const docker = this.#docker;
    const action = `create service ${options.Name} from ${spec.image}`;
    await engineCall({ docker, action, image: spec.image, signal }, async () => {
      try {
        // dockerode sends the options of a one-argument call as X-Registry-Auth too: an explicit
        // `undefined` auth sends no registry credentials at all.
        await docker.createService(undefined as unknown as Docker.AuthConfig, options);
      } catch (error) {
        if (dockerStatus(error) === 409) throw sessionExists(spec.sessionId, this.namespace, error);
        throw error;
      }
    });
  }

  /** Scales the session's service (see `scaleSwarmService`) and answers the session. */
  async #scale(
    runtimeId: string,
    replicas: 0 | 1,
    signal: AbortSignal | undefined,
  ): Promise<BackendSession> {
    await scaleSwarmService({
      docker: this.#docker,
      replicas,
      current: () => this.#one(runtimeId, signal),
      signal,
    });
    const session = await this.getByRuntimeId(runtimeId, { signal });
    if (!session) throw sessionNotFound(runtimeId, this.namespace);
    return session;
  }

  /** The one service of `runtimeId` with its newest task, or `NOT_FOUND`. */
  async #one(runtimeId: string, signal: AbortSignal | undefined): Promise<FoundService> {
    const [found] = await this.#find({ [RUNTIME_LABELS.runtimeId]: runtimeId }, signal);
    if (!found) throw sessionNotFound(runtimeId, this.namespace);
    return found;
  }

  /** This namespace's services with `labels`, each with its newest task. */
  #find(labels: Record<string, string>, signal: AbortSignal | undefined): Promise<FoundService[]> {
    return findSwarmServices({
      docker: this.#docker,
      labels: { [RUNTIME_LABELS.namespace]: this.namespace, ...labels },
      signal,
    });
  }

  /** This namespace's session services with `labels`, as the engine sees them. */
  protected async sessionsLabelled(
    labels: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<BackendSession[]> {
    const found = await this.#find(labels, signal);
    const running = found.some(({ task }) => task?.Status?.State === 'running');
    const nodes = running ? await this.#nodes(signal) : new Map<string, SwarmNode>();
    return found.map(({ service, task }) =>
      swarmTaskSession({
        docker: this.#docker,
        service,
        task,
        nodes,
        nodeAddresses: this.#nodeAddresses,
      }),
    );
  }

  /** The swarm's nodes by id. */
  async #nodes(signal: AbortSignal | undefined): Promise<Map<string, SwarmNode>> {
    const docker = this.#docker;
    const nodes = (await engineCall({ docker, action: 'list nodes', signal }, () =>
      docker.listNodes({ abortSignal: signal }),
    )) as SwarmNode[];
    return new Map(nodes.map((node) => [node.ID, node]));
  }
}
