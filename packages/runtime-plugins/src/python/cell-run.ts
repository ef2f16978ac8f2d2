import { z } from 'zod';
import { CellOutput } from './cell-output.js';
import type { CellResult, CellStatus } from './cell-result.js';
import { CWD_EXPRESSION, cwdFromExpression } from './cwd-expression.js';
import type { JupyterMessage } from './jupyter-codec.js';
import type { Kernel } from './kernel.js';
import type { ReceivingChannel } from './kernel-channels.js';
import { lastLines } from './last-lines.js';
import { msUntil } from './ms-until.js';

/** Options of {@link CellRun}. */
export interface CellRunOptions {
  /** The kernel the cell runs on. */
  kernel: Kernel;
  /** The cell's code. */
  code: string;
  /** When the cell is interrupted as `timeout`, as a `Date.now()` time. */
  deadline: number;
  /** Aborting interrupts the cell. */
  signal?: AbortSignal | undefined;
  /**
   * Stops {@link CellRunOptions.kernel} because of `why` (it did not stop when interrupted, or
   * could not take the cell) and has the next one started; the cell ends once it is stopped.
   */
  replaceKernel: (why: string) => Promise<void>;
}

/** Wait for the reply after an interrupt before the kernel is restarted instead, in ms. */
const INTERRUPT_GRACE_MS = 2000;
/** Wait for the iopub `idle` of a cell whose reply came (a lost `idle` must not hang it), in ms. */
const IDLE_GRACE_MS = 1000;

const replySchema = z.looseObject({
  status: z.string(),
  execution_count: z.number().int().nullish(),
  user_expressions: z.record(z.string(), z.unknown()).optional(),
});
const statusSchema = z.looseObject({ execution_state: z.string() });

/** How a cell ended, without what it showed and the kernel's pid (which are added to it). */
type CellEnd = Omit<CellResult, 'text' | 'images' | 'pid'>;

/**
 * One cell on one kernel: sends its `execute_request` and collects its outputs until its reply
 * and `idle`. A cell that runs past its deadline or is interrupted gets SIGINT (once it runs); a
 * kernel that does not answer that within a grace period is replaced, as is one the cell could
 * not be sent to. A kernel that exits under the cell ends it as `died` (or `interrupted` when
 * it was being stopped on purpose).
 */
export class CellRun {
  readonly #options: CellRunOptions;
  readonly #output = new CellOutput();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #onExit = () => this.#kernelExited();
  readonly #onAbort = () => this.#interrupt('interrupt');
  #id = '';
  #reply: z.infer<typeof replySchema> | undefined;
  #idle = false;
  #started = false;
  #stopReason: 'timeout' | 'interrupt' | undefined;
  #sigintSent = false;
  #settled = false;
  #resolve: (result: CellResult) => void = () => {};

  /** A cell to {@link CellRun.run}. */
  constructor(options: CellRunOptions) {
    this.#options = options;
  }

  /** Runs the cell (call once); resolves with its result when it ends, never rejects. */
  run(): Promise<CellResult> {
    const { kernel, code, deadline, signal } = this.#options;
    return new Promise<CellResult>((resolve) => {
      this.#resolve = resolve;
      const request = kernel.codec.request('execute_request', {
        code,
        silent: false,
        store_history: true,
        user_expressions: { cwd: CWD_EXPRESSION },
        allow_stdin: false,
        // One request at a time anyway; `true` would abort a request sent right after an error.
        stop_on_error: false,
      });
      this.#id = request.header.msg_id;
      kernel.listeners.set(this.#id, (channel, message) => this.#received(channel, message));
      kernel.exitListeners.add(this.#onExit);
      if (!kernel.process.alive || kernel.stopping !== undefined) {
        this.#onExit();
        return;
      }
      signal?.addEventListener('abort', this.#onAbort, { once: true });
      this.#later(msUntil(deadline), () => this.#interrupt('timeout'));
      if (signal?.aborted) this.#interrupt('interrupt');
      kernel.channels
        .send('shell', request)
        .catch((error: Error) =>
          this.#restartInstead(`the cell could not be sent (${error.message})`),
        );
    });
  }

  /** Interrupts the cell (SIGINT; a restart when it does not stop). No-op once it ended. */
  interrupt(): void {
    this.#interrupt('interrupt');
  }

  #later(ms: number, run: () => void): void {
    this.#timers.add(setTimeout(run, ms));
  }

  #finish(result: CellEnd): void {
    if (this.#settled) return;
    this.#settled = true;
    const { kernel, signal } = this.#options;
    for (const timer of this.#timers) clearTimeout(timer);
    signal?.removeEventListener('abort', this.#onAbort);
    kernel.listeners.delete(this.#id);
    kernel.exitListeners.delete(this.#onExit);
    this.#resolve({
      ...result,
      text: this.#output.text(),
      images: this.#output.images(),
      pid: kernel.process.pid,
    });
  }

  #stoppedStatus(): CellStatus {
    return this.#stopReason === 'timeout' ? 'timeout' : 'interrupted';
  }

  #sendSigint(): void {
    if (this.#sigintSent) return;
    this.#sigintSent = true;
    this.#options.kernel.process.signalGroup('SIGINT');
  }

  #interrupt(reason: 'timeout' | 'interrupt'): void {
    if (this.#settled || this.#stopReason !== undefined) return;
    this.#stopReason = reason;
    // Before `execute_input` the kernel still ignores SIGINT: send it once the cell runs.
    if (this.#started) this.#sendSigint();
    this.#later(INTERRUPT_GRACE_MS, () =>
      this.#restartInstead('the kernel did not stop when interrupted'),
    );
  }

  #restartInstead(why: string): void {
    if (this.#settled) return;
    const { kernel } = this.#options;
    const status = this.#stopReason === undefined ? 'died' : this.#stoppedStatus();
    // A reply that still comes must not report a cell whose kernel is being killed as done.
    kernel.listeners.delete(this.#id);
    kernel.exitListeners.delete(this.#onExit);
    void this.#options.replaceKernel(why).then(() => {
      const note = `${why}, so it was restarted; its state is lost`;
      this.#finish({ status, executionCount: null, cwd: undefined, stateLost: true, note });
    });
  }

  #maybeFinish(): void {
    const reply = this.#reply;
    if (reply === undefined || !this.#idle) return;
    const failed = reply.status !== 'ok';
    this.#finish({
      status: !failed ? 'ok' : this.#stopReason !== undefined ? this.#stoppedStatus() : 'error',
      executionCount: reply.execution_count ?? null,
      cwd: cwdFromExpression(reply.user_expressions?.cwd),
      stateLost: false,
      note: undefined,
    });
  }

  #received(channel: ReceivingChannel, message: JupyterMessage): void {
    const type = message.header.msg_type;
    if (channel === 'shell' && type === 'execute_reply') {
      const parsed = replySchema.safeParse(message.content);
      this.#reply = parsed.success ? parsed.data : { status: 'error' };
      if (!this.#idle) {
        this.#later(IDLE_GRACE_MS, () => {
          this.#idle = true;
          this.#maybeFinish();
        });
      }
      this.#maybeFinish();
    } else if (channel !== 'iopub') {
      return;
    } else if (type === 'execute_input') {
      this.#started = true;
      if (this.#stopReason !== undefined) this.#sendSigint();
    } else if (type === 'status') {
      const status = statusSchema.safeParse(message.content);
      if (status.success && status.data.execution_state === 'idle') {
        this.#idle = true;
        this.#maybeFinish();
      }
    } else {
      this.#output.add(message);
    }
  }

  #kernelExited(): void {
    const { kernel } = this.#options;
    const stderr = kernel.process.stderrTail();
    const deliberate = kernel.stopping !== undefined;
    this.#finish({
      status: deliberate ? 'interrupted' : 'died',
      executionCount: null,
      cwd: undefined,
      stateLost: true,
      note: deliberate
        ? `${kernel.stopping}; its state is lost`
        : `the python kernel ${kernel.process.describeExit()} while the cell ran; its state is lost and it will be restarted for the next cell${stderr ? `. Its stderr ends:\n${lastLines(stderr, 10)}` : ''}`,
    });
  }
}
