import { releaseFailedStart } from './release-failed-start.js';
import type { BackendCallOptions, BackendSession } from './runtime-backend.js';
import { RUNTIME_LABELS } from './session-labels.js';

/**
 * What the engine backends share (`DockerRuntimeBackend`, `SwarmRuntimeBackend`): sessions are
 * found by their labels in the engine — by runtime id, or all of the namespace — and a start that
 * fails removes what it made. A subclass says how its engine finds labelled sessions
 * ({@link sessionsLabelled}) and how long a clean-up may take.
 */
export abstract class LabelledRuntimeBackend {
  /** The label namespace the backend lists. */
  abstract readonly namespace: string;
  /** Bound on removing what a failed start created, in milliseconds. */
  protected abstract readonly cleanupTimeoutMs: number;

  /** Removes the sandbox of `runtimeId`; `false` when there was none. */
  abstract stop(runtimeId: string, options?: BackendCallOptions): Promise<boolean>;

  /** This namespace's sessions carrying `labels` (never an unclaimed warm sandbox). */
  protected abstract sessionsLabelled(
    labels: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<BackendSession[]>;

  /** The session by its runtime id, or `undefined`. */
  async getByRuntimeId(
    runtimeId: string,
    { signal }: BackendCallOptions = {},
  ): Promise<BackendSession | undefined> {
    return (await this.sessionsLabelled({ [RUNTIME_LABELS.runtimeId]: runtimeId }, signal))[0];
  }

  /** Every session of this namespace. */
  async list({ signal }: BackendCallOptions = {}): Promise<BackendSession[]> {
    return this.sessionsLabelled({}, signal);
  }

  /**
   * Runs `start` of the sandbox `runtimeId`; when it fails, what it made is removed (bounded by
   * {@link cleanupTimeoutMs}, see `releaseFailedStart`) and its error rethrown.
   */
  protected async releasingFailedStart<T>(runtimeId: string, start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      return releaseFailedStart(error, {
        backend: this,
        runtimeId,
        timeoutMs: this.cleanupTimeoutMs,
      });
    }
  }
}
