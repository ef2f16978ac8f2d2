// Plain `node:child_process` rather than execa: when a spawn hits EMFILE/ENFILE, Node returns a
// ChildProcess without `stdio` and emits 'error' on the next tick; execa 9 (and 10) reads
// `subprocess.stdio` before listening, throws "subprocess.stdio is not iterable", and the
// abandoned 'error' event crashes the whole process.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { WorkspaceError } from '../../errors/workspace-error.js';
import type { CommandSandbox, ProcessLaunch } from '../../workspace/command-sandbox.js';

/** Input of {@link spawnChild}. */
export interface SpawnChildOptions extends ProcessLaunch {
  /** The child's whole environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** `'ignore'` (default): the child reads EOF. `'pipe'`: {@link SpawnedChild.stdin} feeds it. */
  stdin?: 'ignore' | 'pipe' | undefined;
  /** Extra output pipes on file descriptors 3, 4, ... (default none). */
  extraOutputs?: number | undefined;
  /** Make the child the leader of a new process group (default `false`). */
  detached?: boolean | undefined;
  /** Run the program inside this sandbox: the launch goes through its `wrap`. */
  sandbox?: CommandSandbox | undefined;
}

/** How a child ended: an exit code, or the signal that killed it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child started by {@link spawnChild}. Its stdout and stderr are pipes. */
export interface SpawnedChild {
  /** Host process id; `undefined` when the program could not start. */
  readonly pid: number | undefined;
  /** The stdin pipe when `stdin: 'pipe'` and the program started, else `null`. */
  readonly stdin: Writable | null;
  /** `null` when the program could not start. */
  readonly stdout: Readable | null;
  /** `null` when the program could not start. */
  readonly stderr: Readable | null;
  /** The pipes asked for with `extraOutputs` (empty when the program could not start). */
  readonly extraOutputs: readonly Readable[];
  /**
   * Resolves when the program exits. Rejects with a `SPAWN_ERROR` `WorkspaceError` when it could
   * not start (`details.errno`: `EMFILE`, `ENFILE`, `EAGAIN`, `ENOENT`, `EACCES`, `E2BIG`, ...),
   * or with the error of a sandbox's `wrap` (`SANDBOX_EXITED`).
   */
  readonly exit: Promise<ChildExit>;
  /** Lets the Node process exit while the child and its pipes are still open. */
  unref(): void;
  /** Undoes {@link SpawnedChild.unref} for the child (not its pipes). */
  ref(): void;
}

/**
 * Starts a program on `node:child_process.spawn` without ever throwing for a spawn failure and
 * without an unhandled 'error' event: the listener is attached before anything else runs, a
 * child without `stdio` (EMFILE/ENFILE) is handled, and every failure to start becomes a
 * rejected {@link SpawnedChild.exit}.
 */
export function spawnChild(options: SpawnChildOptions): SpawnedChild {
  const { file, args, cwd } = options;
  const extraOutputs = options.extraOutputs ?? 0;
  const pipes = 2 + extraOutputs + (options.stdin === 'pipe' ? 1 : 0);
  const shortage = descriptorShortage(2 * pipes + DESCRIPTOR_SLACK);
  if (shortage) return unstartedChild(Promise.reject(spawnError(options, shortage)));
  let child: ChildProcess;
  try {
    const launch = options.sandbox
      ? options.sandbox.wrap({ file, args, cwd })
      : { file, args, cwd };
    child = spawn(launch.file, launch.args, {
      cwd: launch.cwd,
      env: options.env,
      stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe', ...Array(extraOutputs).fill('pipe')],
      detached: options.detached ?? false,
    });
  } catch (error) {
    // A sandbox that is gone refuses in `wrap`; Node throws invalid input (NUL bytes) and
    // errors like E2BIG synchronously.
    const failure = WorkspaceError.isInstance(error) ? error : spawnError(options, error);
    return unstartedChild(Promise.reject(failure));
  }
  const exit = new Promise<ChildExit>((resolve, reject) => {
    // Attached synchronously, and kept: a later 'error' (a failed kill) is harmless.
    child.on('error', (error) => {
      if (child.pid === undefined) reject(spawnError(options, error));
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const stdio = child.stdio ?? [];
  if (child.pid === undefined) {
    // Failed to start ('error' follows on the next tick); `stdio` is missing on EMFILE/ENFILE.
    for (const stream of stdio) stream?.destroy();
    return unstartedChild(exit);
  }
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    extraOutputs: stdio.slice(3) as Readable[],
    exit: guarded(exit),
    unref: () => {
      child.unref();
      for (const stream of stdio) (stream as { unref?: () => void } | null)?.unref?.();
    },
    ref: () => child.ref(),
  };
}

/** Descriptors a spawn needs beyond its pipes: libuv's exec-error pipe, plus a margin. */
const DESCRIPTOR_SLACK = 4;

/**
 * The `EMFILE`/`ENFILE` error when fewer than `count` descriptors can be opened now, else
 * `undefined`. Checked before every spawn because libuv leaks the parent's ends of the stdio
 * pipes when `uv_spawn` runs out of descriptors after creating them (Node 20: one socket pair
 * per such failure, for good); a spawn refused here never gets that far. Costs ~15 µs.
 */
function descriptorShortage(count: number): Error | undefined {
  const opened: number[] = [];
  try {
    for (let index = 0; index < count; index++) {
      opened.push(openSync('/dev/null', constants.O_RDONLY));
    }
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EMFILE' || code === 'ENFILE') return error as Error;
    throw error;
  } finally {
    for (const fd of opened) closeSync(fd);
  }
}

/** The `SPAWN_ERROR` for a program that could not start; names the program, not the sandbox. */
function spawnError(options: SpawnChildOptions, error: unknown): WorkspaceError {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = options.sandbox ? ' in the command sandbox' : '';
  const reason = error instanceof Error ? error.message : String(error);
  return new WorkspaceError({
    code: 'SPAWN_ERROR',
    message: `cannot start ${options.file}${where}: ${reason}`,
    cause: error,
    details: { program: options.file, ...(typeof errno === 'string' ? { errno } : {}) },
  });
}

/** A child that could not start: nothing runs, `exit` rejects with the `SPAWN_ERROR`. */
function unstartedChild(exit: Promise<ChildExit>): SpawnedChild {
  return {
    pid: undefined,
    stdin: null,
    stdout: null,
    stderr: null,
    extraOutputs: [],
    exit: guarded(exit),
    unref: () => {},
    ref: () => {},
  };
}

/** `promise`, marked as handled so a caller that never awaits it cannot crash the process. */
function guarded<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
