// Trust boundary: a kernel is exempt from the server's workspace (a long-lived process no
// workspace operation can hold); it starts only through the plugin's `PluginProcesses`, the
// host's sandbox and environment, where plugin-processes.ts says how each part of the boundary
// is kept.
import type { ProcessLaunch } from '@agent-workspace/core';
import type { SpawnedChild } from '@agent-workspace/core/internal';
import type { PluginProcesses } from '../plugin/plugin-processes.js';

/** How a kernel process ended. */
export interface KernelExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (`ENOENT`, `EACCES`, ...). */
  error?: Error | undefined;
}

/** Options of {@link KernelProcess.start}. */
export interface KernelProcessOptions {
  /** The kernel's program, arguments and working directory. */
  launch: ProcessLaunch;
  /** The variables the kernel needs on top of the host's environment. */
  env: Readonly<Record<string, string>>;
  /** Where it starts: the host's sandbox and environment. */
  processes: PluginProcesses;
}

/** Bytes of stderr kept for error messages. */
const STDERR_TAIL_BYTES = 4096;

/**
 * A kernel's operating-system process: the leader of its own process group (so that a signal
 * reaches the processes a cell started too, and they die with it), with the tail of its stderr
 * and its exit. In a command sandbox it is the host-side launch (nsenter), which ignores the
 * signals it relays, and the kernel inside is a member of its group.
 */
export class KernelProcess {
  /** Its pid, also its process group id; `undefined` when it could not be started. */
  readonly pid: number | undefined;
  /** Resolves once it has exited (or failed to start); never rejects. */
  readonly exited: Promise<KernelExit>;
  #exit: KernelExit | undefined;
  #stderr = Buffer.alloc(0);

  private constructor(child: SpawnedChild) {
    this.pid = child.pid;
    this.exited = child.exit
      .then(
        ({ code, signal }): KernelExit => ({ code, signal }),
        (error: unknown): KernelExit => ({ code: null, signal: null, error: error as Error }),
      )
      .then((exit) => {
        // Processes its cells started must not outlive it; after this the group is left alone,
        // as its id may be reused once it is empty.
        if (this.#exit === undefined) this.signalGroup('SIGKILL');
        this.#exit ??= exit;
        return this.#exit;
      });
    child.stdout?.resume();
    child.stderr?.on('data', (chunk: Buffer) => {
      const joined = Buffer.concat([this.#stderr, chunk]);
      this.#stderr = joined.subarray(Math.max(0, joined.length - STDERR_TAIL_BYTES));
    });
  }

  /**
   * Starts the kernel in a new process group, through `processes` (the host's sandbox, when it
   * has one, and its environment). A failure to start (descriptors exhausted, a sandbox that is
   * gone) shows in {@link exited}.
   */
  static start({ launch, env, processes }: KernelProcessOptions): KernelProcess {
    return new KernelProcess(processes.start({ ...launch, env, detached: true }));
  }

  /** True until it has exited. */
  get alive(): boolean {
    return this.pid !== undefined && this.#exit === undefined;
  }

  /** How it ended, in words, for messages: `exited with code 1`, `was killed by SIGKILL`. */
  describeExit(): string {
    const exit = this.#exit;
    if (exit === undefined) return 'is running';
    if (exit.error !== undefined) return `could not be started (${exit.error.message})`;
    if (exit.signal !== null) return `was killed by ${exit.signal}`;
    return `exited with code ${exit.code}`;
  }

  /** The last lines of its stderr, trimmed. */
  stderrTail(): string {
    return this.#stderr.toString('utf8').trim();
  }

  /** Sends `signal` to its process group while it runs; false when it does not. */
  signalGroup(signal: NodeJS.Signals): boolean {
    if (this.pid === undefined || this.#exit !== undefined) return false;
    try {
      process.kill(-this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * SIGKILLs its process group and waits, at most `timeoutMs`, for the leader to exit (which
   * SIGKILLs the group once more, for processes forked meanwhile).
   */
  async kill(timeoutMs: number): Promise<void> {
    if (!this.signalGroup('SIGKILL')) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.exited,
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
