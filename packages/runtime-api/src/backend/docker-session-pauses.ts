import { setTimeout as sleep } from 'node:timers/promises';
import { WorkspaceError } from '@agent-workspace/core';
import { dockerStatus, retryFreeze } from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import type { FoundContainer } from './docker-runtime-backend.js';
import { engineCall } from './engine-call.js';
import { PauseMarkers } from './pause-markers.js';
import type { BackendSession } from './runtime-backend.js';
import { sessionNotFound } from './session-errors.js';
import { RUNTIME_LABELS } from './session-labels.js';

/** How often a pause or unpause is looked for in the engine's state, in milliseconds. */
const SETTLE_POLL_MS = 10;
/** How long a pause or unpause the engine accepted may take to show, in milliseconds. */
const SETTLE_TIMEOUT_MS = 2000;

/** What {@link DockerSessionPauses} needs of its backend. */
export interface DockerPauseHost {
  docker: Docker;
  namespace: string;
  /** `docker inspect`, or `undefined` when the container is gone. */
  inspect(
    id: string,
    signal: AbortSignal | undefined,
  ): Promise<Docker.ContainerInspectInfo | undefined>;
  /** The engine's view of a session from its container; `markedPaused` with a pause marker. */
  session(info: Docker.ContainerInspectInfo, markedPaused?: boolean): BackendSession;
}

/**
 * Pause and resume of Docker sessions: `docker pause` / `docker unpause`, with each pause also
 * recorded in the engine ({@link PauseMarkers}), so that a paused session whose container an
 * engine restart stopped stays `paused` and `resume` starts it again with its files.
 */
export class DockerSessionPauses {
  readonly #host: DockerPauseHost;
  readonly #markers: PauseMarkers;

  constructor(host: DockerPauseHost) {
    this.#host = host;
    this.#markers = new PauseMarkers({ docker: host.docker, namespace: host.namespace });
  }

  /**
   * Records the pause, then `docker pause`; a paused session is left as it is (one the engine
   * stopped while paused stays so).
   */
  async pause(found: FoundContainer, signal: AbortSignal | undefined): Promise<BackendSession> {
    if (!isLive(found.info)) return this.session(found.info, signal);
    const runtimeId = runtimeIdOf(found);
    await this.#markers.mark(runtimeId, signal);
    try {
      return await this.#freeze(found, true, signal);
    } catch (error) {
      const info = await this.#host.inspect(found.id, signal).catch(() => undefined);
      if (!info?.State.Paused) await this.#markers.clear(runtimeId, signal).catch(() => {});
      throw error;
    }
  }

  /**
   * `docker unpause`, or `docker start` for a paused session the engine stopped (it restarted):
   * files stay, processes start afresh, the host port is new. Then the pause record goes. A
   * running session is left as it is, an exited one never paused too (it is `stopped`).
   */
  async resume(found: FoundContainer, signal: AbortSignal | undefined): Promise<BackendSession> {
    let session: BackendSession;
    if (isLive(found.info)) {
      session = await this.#freeze(found, false, signal);
    } else {
      const exited = await this.session(found.info, signal);
      if (exited.status !== 'paused') return exited;
      session = await this.#restart(found, signal);
    }
    await this.#markers.clear(runtimeIdOf(found), signal);
    return session;
  }

  /** Removes what recorded a pause of `runtimeId` (when its session stops). */
  forget(runtimeId: string, signal: AbortSignal | undefined): Promise<void> {
    return this.#markers.clear(runtimeId, signal);
  }

  /** The runtime ids of this namespace recorded paused (only `runtimeId`'s when given). */
  paused(signal: AbortSignal | undefined, runtimeId?: string | undefined): Promise<Set<string>> {
    return this.#markers.marked(signal, runtimeId);
  }

  /** The session of `info`, its pause record looked up when its container has exited. */
  async session(
    info: Docker.ContainerInspectInfo,
    signal: AbortSignal | undefined,
  ): Promise<BackendSession> {
    const runtimeId = info.Config.Labels?.[RUNTIME_LABELS.runtimeId];
    if (isLive(info) || runtimeId === undefined) return this.#host.session(info);
    return this.#host.session(info, (await this.paused(signal, runtimeId)).size > 0);
  }

  /**
   * Pauses (`frozen`) or unpauses the session's container unless it is so already; a freeze the
   * runtime gave up on is tried again (`retryFreeze`).
   */
  async #freeze(
    found: FoundContainer,
    frozen: boolean,
    signal: AbortSignal | undefined,
  ): Promise<BackendSession> {
    if (found.info.State.Paused === frozen) return this.#host.session(found.info);
    const { docker } = this.#host;
    const container = docker.getContainer(found.id);
    const verb = frozen ? 'pause' : 'unpause';
    try {
      await engineCall({ docker, action: `${verb} container ${found.id}`, signal }, () =>
        frozen
          ? retryFreeze(() => container.pause({ abortSignal: signal }), { signal })
          : container.unpause({ abortSignal: signal }),
      );
    } catch (error) {
      // A concurrent call may have done it first, or done it and been undone by another since.
      const info = await this.#host.inspect(found.id, signal);
      if (info?.State.Paused !== frozen) throw info ? asStateConflict(error) : error;
    }
    return this.#reinspect(found, signal, frozen);
  }

  /** Starts the exited container of a paused session again (a concurrent start is no failure). */
  async #restart(found: FoundContainer, signal: AbortSignal | undefined): Promise<BackendSession> {
    const { docker } = this.#host;
    await engineCall({ docker, action: `start container ${found.id}`, signal }, async () => {
      try {
        await docker.getContainer(found.id).start({ abortSignal: signal });
      } catch (error) {
        if (dockerStatus(error) !== 304) throw error;
      }
    });
    return this.#reinspect(found, signal);
  }

  /**
   * The session of `found` as the engine has it now; `NOT_FOUND` once it is gone. With
   * `paused`, after a pause or unpause the engine accepted: the engine records the new state only
   * when the runtime's event reaches it, so an inspect right away may still show the old one;
   * it is read again (every {@link SETTLE_POLL_MS}, at most {@link SETTLE_TIMEOUT_MS}) until it
   * shows `paused`.
   */
  async #reinspect(
    found: FoundContainer,
    signal: AbortSignal | undefined,
    paused?: boolean | undefined,
  ): Promise<BackendSession> {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    let info = await this.#host.inspect(found.id, signal);
    while (info && paused !== undefined && info.State.Paused !== paused && Date.now() < deadline) {
      await sleep(SETTLE_POLL_MS, undefined, { signal });
      info = await this.#host.inspect(found.id, signal);
    }
    if (!info) throw sessionNotFound(runtimeIdOf(found), this.#host.namespace);
    return this.#host.session(info);
  }
}

/** True while the container is created, running or frozen: not exited, dead or being removed. */
function isLive(info: Docker.ContainerInspectInfo): boolean {
  return ['created', 'running', 'paused', 'restarting'].includes(info.State.Status);
}

function runtimeIdOf(found: FoundContainer): string {
  return found.info.Config.Labels?.[RUNTIME_LABELS.runtimeId] ?? found.id;
}

/**
 * The engine's refusal to pause a paused container or unpause a running one (it answers 500
 * with "already paused" / "not paused") as a conflict (`statusCode` 409): the container's state
 * changed under the call, so the caller answers 409 like other concurrent changes.
 */
function asStateConflict(error: unknown): unknown {
  if (!WorkspaceError.isInstance(error) || !/already paused|not paused/i.test(error.message)) {
    return error;
  }
  return new WorkspaceError({
    code: error.code,
    message: error.message,
    details: { ...error.details, statusCode: 409 },
    cause: error,
  });
}
