import { dockerStatus, removeContainer } from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import type { FoundContainer } from './docker-runtime-backend.js';
import { engineCall } from './engine-call.js';
import type {
  BackendCallOptions,
  BackendSession,
  WarmSandboxBackend,
  WarmSandboxSpec,
} from './runtime-backend.js';
import {
  isWarmContainerName,
  sessionContainerName,
  warmContainerName,
} from './session-container-name.js';
import { sessionExists, sessionNotFound, validateSessionSpec } from './session-errors.js';
import { RUNTIME_LABELS } from './session-labels.js';

/** What {@link DockerWarmSandboxes} uses of its `DockerRuntimeBackend`. */
export interface DockerSandboxHost {
  docker: Docker;
  namespace: string;
  /** Creates and starts a container `name` for `spec` (removed again when that fails). */
  startContainer(
    name: string,
    spec: WarmSandboxSpec,
    signal: AbortSignal | undefined,
  ): Promise<Docker.ContainerInspectInfo>;
  /** The namespace's containers carrying `labels` and a name `named` accepts, inspected. */
  find(
    labels: Record<string, string>,
    signal: AbortSignal | undefined,
    named: (name: string) => boolean,
  ): Promise<FoundContainer[]>;
  /** `docker inspect` by id or name, `undefined` when gone. */
  inspect(
    id: string,
    signal: AbortSignal | undefined,
  ): Promise<Docker.ContainerInspectInfo | undefined>;
  /** The engine's view of a container. */
  session(info: Docker.ContainerInspectInfo): BackendSession;
}

/**
 * Warm pool sandboxes on one Docker engine. A warm container is named
 * `agent-workspace-warm-<runtime id>` and labelled like a session minus the session id (plus
 * `pooled`); its agent-server key is the sandbox key, bound to its runtime id. **Claiming renames
 * it** to the session's container name (`sessionContainerName`: the session object name, `.`,
 * the session id). Labels cannot change after create, but the name can, and a rename is atomic
 * and refused (409) when the name is in use — by a cold start or another claim of that session
 * id — so the engine keeps session ids unique, the claim survives a restart (the session id is
 * read back from the name), and a claimed container is never listed as warm again.
 */
export class DockerWarmSandboxes implements WarmSandboxBackend {
  readonly #host: DockerSandboxHost;

  /** Works through `host`, the backend's engine access. */
  constructor(host: DockerSandboxHost) {
    this.#host = host;
  }

  /** Creates and starts a warm container; `INVALID_ARGUMENT` for a spec with a session id label. */
  async startWarm(
    spec: WarmSandboxSpec,
    { signal }: BackendCallOptions = {},
  ): Promise<BackendSession> {
    validateSessionSpec(spec, this.#host.namespace);
    const info = await this.#host.startContainer(warmContainerName(spec.runtimeId), spec, signal);
    return this.#host.session(info);
  }

  /** The namespace's unclaimed warm containers, whatever their state. */
  async listWarm({ signal }: BackendCallOptions = {}): Promise<BackendSession[]> {
    const labels = { [RUNTIME_LABELS.pooled]: 'true' };
    const found = await this.#host.find(labels, signal, isWarmContainerName);
    return found.map(({ info }) => this.#host.session(info));
  }

  /**
   * Renames the warm container `runtimeId` to the session's name: `ALREADY_EXISTS` when the
   * session id is taken, `NOT_FOUND` when no unclaimed warm container has that runtime id.
   */
  async claimWarm(
    runtimeId: string,
    sessionId: string,
    { signal }: BackendCallOptions = {},
  ): Promise<BackendSession> {
    const { docker, namespace } = this.#host;
    const name = sessionContainerName(namespace, sessionId);
    // By the warm name: a container claimed already no longer answers to it.
    const warm = docker.getContainer(warmContainerName(runtimeId));
    await engineCall({ docker, action: `claim warm container ${runtimeId}`, signal }, async () => {
      try {
        await warm.rename({ name, abortSignal: signal });
      } catch (error) {
        const status = dockerStatus(error);
        if (status === 409) throw sessionExists(sessionId, namespace, error);
        if (status === 404) throw sessionNotFound(runtimeId, namespace);
        throw error;
      }
    });
    const info = await this.#host.inspect(name, signal);
    if (!info) throw sessionNotFound(runtimeId, namespace);
    return this.#host.session(info);
  }

  /** Force-removes the warm container `runtimeId` (by its warm name, so never a claimed one). */
  async removeWarm(runtimeId: string, { signal }: BackendCallOptions = {}): Promise<boolean> {
    const { docker } = this.#host;
    const name = warmContainerName(runtimeId);
    if (!(await this.#host.inspect(name, signal))) return false;
    await removeContainer({ docker, id: name, stopTimeoutSeconds: 0, signal });
    return true;
  }
}
