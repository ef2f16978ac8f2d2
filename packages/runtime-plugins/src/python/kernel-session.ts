import { abortedError, WorkspaceError } from '@agent-workspace/core';
import { positiveOption } from '@agent-workspace/core/internal';
import { CellQueue } from './cell-queue.js';
import { type CellResult, emptyCellResult } from './cell-result.js';
import { CellRun } from './cell-run.js';
import { Kernel, type KernelOptions } from './kernel.js';

export type { CellResult, CellStatus } from './cell-result.js';

/** Options of {@link KernelSession.execute}. */
export interface ExecuteOptions {
  /** Time the cell may take, queueing included, in milliseconds; then it is interrupted. */
  timeoutMs: number;
  /** Aborting interrupts the cell (or drops it while it waits for its turn). */
  signal?: AbortSignal | undefined;
}

/** Options of {@link KernelSession.start}. */
export interface KernelSessionOptions extends KernelOptions {
  /** Aborts the first start. */
  signal?: AbortSignal | undefined;
}

/**
 * A persistent IPython kernel (`python -m ipykernel_launcher`) spoken to over the Jupyter
 * messaging protocol: one cell at a time (later ones queue), every wait bounded. A cell that runs
 * past its time or is aborted gets SIGINT; a kernel that does not answer it is restarted. A kernel
 * that dies is replaced at the next cell. The kernel runs in its own process group, which
 * `close()` kills.
 *
 * @example
 * ```ts
 * await using session = await KernelSession.start({ pythonPath: '/usr/bin/python3', cwd, stateDir, startTimeoutMs: 30_000 });
 * const result = await session.execute('print(6 * 7)', { timeoutMs: 10_000 });
 * ```
 */
export class KernelSession implements AsyncDisposable {
  readonly #options: KernelSessionOptions;
  readonly #closing = new AbortController();
  readonly #queue = new CellQueue();
  #kernel: Kernel | undefined;
  #booting: Promise<Kernel> | undefined;
  #running: CellRun | undefined;

  private constructor(options: KernelSessionOptions) {
    this.#options = options;
  }

  /**
   * Starts a kernel and waits until it answers a `kernel_info_request` on shell and iopub. A
   * kernel that exits or stays silent for `startTimeoutMs` is a `SPAWN_ERROR` carrying the tail
   * of its stderr; an abort is `ABORTED`.
   */
  static async start(options: KernelSessionOptions): Promise<KernelSession> {
    positiveOption(options.startTimeoutMs, 1, 'startTimeoutMs');
    const session = new KernelSession(options);
    try {
      await session.#ensureKernel(options.signal);
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  /** The current kernel's pid, or `undefined` while there is none running. */
  get pid(): number | undefined {
    return this.#kernel?.process.alive ? this.#kernel.process.pid : undefined;
  }

  /** True while a kernel process is running. */
  get alive(): boolean {
    return this.#kernel?.process.alive ?? false;
  }

  /**
   * Runs `code` after the cells before it. Failures of the cell are its result's `status`; a
   * kernel that cannot be (re)started rejects with `SPAWN_ERROR`, a closed session with
   * `WORKSPACE_CLOSED`.
   */
  async execute(code: string, options: ExecuteOptions): Promise<CellResult> {
    const timeoutMs = positiveOption(options.timeoutMs, 1, 'timeoutMs');
    this.#assertOpen();
    const deadline = Date.now() + timeoutMs;
    const turn = await this.#queue.wait(deadline, options.signal);
    if (turn.outcome !== 'ready') {
      return turn.outcome === 'timeout'
        ? emptyCellResult('timeout', 'the cell did not start: the cells before it used up its time')
        : emptyCellResult('interrupted', 'the cell was cancelled before it started');
    }
    try {
      this.#assertOpen();
      let kernel: Kernel;
      try {
        kernel = await this.#ensureKernel(options.signal);
      } catch (error) {
        if (!WorkspaceError.isInstance(error, 'ABORTED') || !options.signal?.aborted) throw error;
        return emptyCellResult('interrupted', 'the cell was cancelled before it started');
      }
      const cell = new CellRun({
        kernel,
        code,
        deadline,
        signal: options.signal,
        replaceKernel: (why) => this.#replaceKernel(kernel, why),
      });
      this.#running = cell;
      try {
        return await cell.run();
      } finally {
        if (this.#running === cell) this.#running = undefined;
      }
    } finally {
      turn.release();
    }
  }

  /** Interrupts the running cell (SIGINT; a restart when it does not stop). No-op when idle. */
  interrupt(): void {
    this.#running?.interrupt();
  }

  /**
   * Replaces the kernel with a fresh one: every variable is lost. A running cell ends as
   * `interrupted`; queued cells run on the new kernel.
   */
  async restart(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    this.#assertOpen();
    const kernel = this.#kernel;
    if (kernel !== undefined) await kernel.stop('the kernel was restarted', false);
    await this.#ensureKernel(options.signal);
  }

  /**
   * Drops the current kernel for `reason` (one killed from outside, e.g. over its memory limit,
   * before its exit is seen); the next one boots in the background and the next cell waits for it.
   */
  async replaceKernel(reason: string): Promise<void> {
    const kernel = this.#kernel;
    if (kernel !== undefined) await this.#replaceKernel(kernel, reason);
  }

  /** True when the kernel's heartbeat answers within `timeoutMs`. */
  async ping(timeoutMs: number): Promise<boolean> {
    const kernel = this.#kernel;
    if (kernel === undefined || !kernel.process.alive) return false;
    return kernel.channels.ping(timeoutMs);
  }

  /** Shuts the kernel down, kills its process group and removes its files. Idempotent. */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) {
      await this.#kernel?.cleanedUp;
      return;
    }
    this.#closing.abort();
    await this.#booting?.catch(() => {});
    const kernel = this.#kernel;
    if (kernel !== undefined) await kernel.stop('the kernel session was closed', true);
  }

  /** Same as {@link KernelSession.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #assertOpen(): void {
    if (this.#closing.signal.aborted) {
      throw new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: 'the kernel session is closed',
      });
    }
  }

  /**
   * The running kernel, or a new one: one boot at a time, shared by whoever waits for it, and
   * cancelled only by close() (a caller's `signal` only stops its own wait).
   */
  async #ensureKernel(signal: AbortSignal | undefined): Promise<Kernel> {
    const current = this.#kernel;
    if (current?.process.alive && current.stopping === undefined) return current;
    this.#booting ??= Kernel.boot(this.#options, this.#closing.signal)
      .then((kernel) => {
        this.#kernel = kernel;
        return kernel;
      })
      .finally(() => {
        this.#booting = undefined;
      });
    return signal === undefined ? this.#booting : raceAbort(this.#booting, signal);
  }

  /** Stops `kernel` for `why`; unless the session is closing, the next one boots meanwhile. */
  async #replaceKernel(kernel: Kernel, why: string): Promise<void> {
    await kernel.stop(why, false);
    // The next kernel boots in the background; the next cell waits for it.
    if (!this.#closing.signal.aborted) {
      this.#ensureKernel(undefined).catch((error: unknown) =>
        this.#options.logger?.error({ error }, 'python kernel did not restart'),
      );
    }
  }
}

/** `promise`, or an `ABORTED` rejection once `signal` fires. */
async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw abortedError(signal);
  let onAbort = () => {};
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        onAbort = () => reject(abortedError(signal));
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
