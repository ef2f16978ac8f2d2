import { raceSignal } from './race-signal.js';
import { lifecycleHookError } from './sandbox-error.js';
import type { ReleaseSandboxOptions } from './sandbox-hooks.js';

/** What {@link SandboxReleaser} needs from its workspace. */
export interface SandboxReleaserOptions {
  /** The workspace kind, for messages. */
  kind(): string;
  /** The `releaseSandbox()` hook. */
  releaseSandbox(options: ReleaseSandboxOptions): Promise<void>;
  lifecycleTimeoutMs: number;
}

/**
 * Releases what `start()` created, bounded by `lifecycleTimeoutMs`: only if `createSandbox()` was
 * entered, after a create/start hook still in flight, and once when it succeeds (a failed
 * release is tried again by the next call, e.g. `close()` after a failed start).
 */
export class SandboxReleaser {
  readonly #options: SandboxReleaserOptions;
  /** Set once `createSandbox()` was entered: from then on release must run. */
  #created = false;
  /** The create/start hook in flight; release waits for it before it runs. */
  #pendingHook: Promise<unknown> | undefined;
  #releasing: Promise<void> | undefined;
  #reason: ReleaseSandboxOptions['reason'] | undefined;

  constructor(options: SandboxReleaserOptions) {
    this.#options = options;
  }

  /** Records that `createSandbox()` is entered, so release must run. */
  markCreated(): void {
    this.#created = true;
  }

  /** Remembers a create/start hook call so release can wait for it, and races it. */
  track<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    this.#pendingHook = work.catch(() => {});
    return raceSignal(work, signal);
  }

  /** Releases the sandbox, or shares the release in flight or done. */
  release(reason: ReleaseSandboxOptions['reason']): Promise<void> {
    // A retry keeps the first reason: a failed start is always released.
    this.#reason ??= reason;
    this.#releasing ??= this.#releaseOnce(this.#reason).catch((error: unknown) => {
      this.#releasing = undefined;
      throw error;
    });
    return this.#releasing;
  }

  async #releaseOnce(reason: ReleaseSandboxOptions['reason']): Promise<void> {
    const { lifecycleTimeoutMs } = this.#options;
    const signal = AbortSignal.timeout(lifecycleTimeoutMs);
    // A create or start that raced an abort may still be making something.
    await raceSignal(this.#pendingHook ?? Promise.resolve(), signal).catch(() => {});
    if (!this.#created) return;
    try {
      await raceSignal(this.#options.releaseSandbox({ signal, reason }), signal);
    } catch (error) {
      const kind = this.#options.kind();
      throw lifecycleHookError(error, { kind, step: 'releasing', signal, lifecycleTimeoutMs });
    }
  }
}
