import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { signalProcessGroup } from '../internal/process/kill-process-group.js';
import {
  type SpawnChildOptions,
  type SpawnedChild,
  spawnChild,
} from '../internal/process/spawn-child.js';

/** The words of {@link spawnUntilReady}'s errors: `cannot start <subject>: <reason>: <stderr>`. */
export interface SpawnUntilReadyWords {
  /** What is started: `the command sandbox`. */
  subject: string;
  /** The reason after the timeout, before ` after <n> ms`: `not ready`. */
  notReady: string;
  /** Who exited, before ` exited (<how>)`: `bwrap`. */
  exited: string;
}

/** Input of {@link spawnUntilReady}. */
export interface SpawnUntilReadyOptions<T> {
  /** How to spawn the child; it always becomes the leader of a new process group. */
  spawn: Omit<SpawnChildOptions, 'detached'>;
  /** Resolves with what the child reports once it is ready; never settles when it does not. */
  ready: (child: SpawnedChild) => Promise<T>;
  /** Longest wait for {@link ready}. */
  timeoutMs: number;
  /** Kept bytes of the child's standard error, for error messages. */
  stderrTailBytes: number;
  words: SpawnUntilReadyWords;
  signal?: AbortSignal | undefined;
}

/** A child that said it is ready. */
export interface ReadyChild<T> {
  /** The process this process started (its process group leader), unref'd. */
  readonly process: SpawnedChild;
  /** What {@link SpawnUntilReadyOptions.ready} resolved with. */
  readonly value: T;
  /** The last bytes the child wrote to its standard error. */
  stderr(): string;
}

/**
 * Spawns a helper process (detached) and waits, at most `timeoutMs`, until `ready` resolves;
 * then resumes its stdout and unrefs it, so it neither blocks on a full pipe nor keeps this
 * process alive.
 *
 * @throws WorkspaceError `SPAWN_ERROR` (with the tail of its standard error) when it cannot
 * start, exits or is too slow; `ABORTED` when `signal` fires; what the child's `exit` rejects
 * with (a sandbox's `SANDBOX_EXITED`). Its process group is killed then, and waited for.
 */
export async function spawnUntilReady<T>(
  options: SpawnUntilReadyOptions<T>,
): Promise<ReadyChild<T>> {
  const { signal, words } = options;
  if (signal?.aborted) throw abortedError(signal);
  const child = spawnChild({ ...options.spawn, detached: true });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-options.stderrTailBytes);
  });
  const failure = (reason: string): WorkspaceError =>
    new WorkspaceError({
      code: 'SPAWN_ERROR',
      message: `cannot start ${words.subject}: ${reason}${stderr.trim() ? `: ${stderr.trim()}` : ''}`,
      details: { program: options.spawn.file, stderr },
    });

  let timer: NodeJS.Timeout | undefined;
  let onAbort = (): void => {};
  const stopped = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(failure(`${words.notReady} after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    onAbort = () => reject(abortedError(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
    child.exit.then(
      // Let stderr's last chunk arrive before building the message.
      ({ code, signal: exitSignal }) =>
        setImmediate(() =>
          reject(failure(`${words.exited} exited (${exitSignal ?? `code ${code}`})`)),
        ),
      reject,
    );
  });
  try {
    const value = await Promise.race([options.ready(child), stopped]);
    child.stdout?.resume();
    child.unref();
    return { process: child, value, stderr: () => stderr };
  } catch (error) {
    if (child.pid !== undefined) signalProcessGroup(child.pid, 'SIGKILL');
    await child.exit.catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    stopped.catch(() => {});
  }
}
