import { constants as osConstants } from 'node:os';
import type { CommandResult } from '@agent-workspace/protocol';
import { checkCommandEnvironment, checkCommandText } from '@agent-workspace/protocol/constants';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { MAX_TIMER_MS } from '../internal/max-timer-ms.js';
import { OutputCapture } from '../internal/output/output-capture.js';
import { bashPath } from '../internal/process/bash-path.js';
import {
  killProcessGroup,
  type ProcessGroupKill,
  signalProcessGroup,
} from '../internal/process/kill-process-group.js';
import { type ChildExit, spawnChild } from '../internal/process/spawn-child.js';
import { assertDirectory } from './assert-directory.js';
import { classifyWithOomKills, oomKillsSoFar } from './oom-kills-so-far.js';
import type { RunLocalCommandOptions } from './run-local-command-options.js';
import { writeToStdin } from './write-to-stdin.js';

/**
 * How long to keep reading after bash exits. Output a backgrounded process writes after that
 * is discarded, and the pipes are left open so that process is not hit by SIGPIPE.
 */
export const OUTPUT_DRAIN_MS = 100;

/** Input of {@link startLocalCommand}. */
export interface StartLocalCommandOptions extends RunLocalCommandOptions {
  /** `'ignore'` (default): the command reads EOF. `'pipe'`: feed it with `writeStdin`. */
  stdin?: 'ignore' | 'pipe' | undefined;
  /** Merge `env` over `process.env` (default `true`); `false` makes `env` the whole environment. */
  extendEnv?: boolean | undefined;
}

/** A command started by {@link startLocalCommand}. */
export interface LocalCommandHandle {
  /**
   * Process id of bash (with a sandbox: of the host process that entered it), which leads the
   * command's process group; `undefined` if it never started.
   */
  readonly pid: number | undefined;
  /** Settles like `runLocalCommand`'s promise. */
  readonly result: Promise<CommandResult>;
  /**
   * Writes to the command's stdin; resolves once the data is handed to the pipe.
   * Rejects with `INVALID_ARGUMENT` (field `stdin`) when stdin was not piped, was closed, or the
   * command stopped reading it.
   */
  writeStdin(data: string | Uint8Array): Promise<void>;
  /** Closes stdin so the command reads EOF. Idempotent. */
  closeStdin(): void;
  /** Sends `name` to the command's process group; does nothing once bash has exited. */
  signal(name: NodeJS.Signals): void;
  /**
   * Stops reading the command's output until {@link LocalCommandHandle.resumeOutput}: the pipes
   * fill and the command blocks on its next write (backpressure for a consumer that is behind).
   * Time paused counts towards the timeout; output written before bash exits is not lost.
   */
  pauseOutput(): void;
  /** Reads the command's output again. Idempotent. */
  resumeOutput(): void;
}

/**
 * Starts a command with `bash -c` on this machine, in its own process group, and returns at once
 * with a handle to feed its stdin, signal it and await its result. Semantics of the result
 * (drain, timeout, abort, output caps, callbacks) are those of `runLocalCommand`.
 *
 * @throws WorkspaceError synchronously: `INVALID_CWD`, `INVALID_ARGUMENT` (a command over
 * `MAX_COMMAND_BYTES`, NUL bytes, an environment over the limits of `checkCommandEnvironment`)
 * or `ABORTED`; no process is started. A shell that cannot start rejects `result` with
 * `SPAWN_ERROR` (`details.errno`), a sandbox that is gone with `SANDBOX_EXITED`.
 */
export function startLocalCommand(options: StartLocalCommandOptions): LocalCommandHandle {
  const { maxOutputBytes, signal } = options;
  if (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < 0) {
    throw invalidArgument(
      'maxOutputBytes',
      `must be a non-negative integer, got ${String(maxOutputBytes)}`,
    );
  }
  const problem = checkCommandText(options.command) ?? checkCommandEnvironment(options.env);
  if (problem) throw invalidArgument(problem.field, problem.reason);
  assertDirectory(options.cwd);
  if (signal?.aborted) throw abortedError(signal);
  let controls: HandleControls | undefined;
  const result = new Promise<CommandResult>((resolve, reject) => {
    controls = run(options, resolve, reject);
  });
  return controls ? { ...controls, result } : unstartedHandle(result);
}

/** Handle methods of a running command, without `result`. */
type HandleControls = Omit<LocalCommandHandle, 'result'>;

/** Spawns the command, settles through `resolve`/`reject` exactly once, returns its controls. */
function run(
  options: StartLocalCommandOptions,
  resolve: (result: CommandResult) => void,
  reject: (error: unknown) => void,
): HandleControls {
  const { command, signal } = options;
  const startedAt = performance.now();
  // Read now, compared only if the command ends with a kill (so an OOM kill can be told apart).
  const oomKillsBefore = oomKillsSoFar();
  const stdout = new OutputCapture(options.maxOutputBytes, options.onStdout);
  const stderr = new OutputCapture(options.maxOutputBytes, options.onStderr);
  const child = spawnChild({
    file: options.shell ?? bashPath(),
    args: ['-c', command],
    cwd: options.cwd,
    env: (options.extendEnv ?? true) ? { ...process.env, ...options.env } : options.env,
    stdin: options.stdin ?? 'ignore',
    detached: true,
    sandbox: options.sandbox,
  });
  const { pid, stdin } = child;
  const streams = [child.stdout, child.stderr].filter((stream) => stream !== null);
  // EPIPE when the command stops reading: surfaced through `writeStdin`, never thrown.
  stdin?.on('error', () => {});

  let settled = false;
  let exited = false;
  let exitCode = -1;
  let exitSignal: NodeJS.Signals | null = null;
  let durationMs = 0;
  let timedOut = false;
  let aborted = false;
  let failure: unknown;
  let openStreams = streams.length;
  let kill: ProcessGroupKill | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  let paused = false;
  /** The drain after bash exited ended while paused: it starts again on resume. */
  let drainDeferred = false;

  const stop = (): void => {
    if (kill || exited || pid === undefined) return;
    kill = killProcessGroup(pid);
  };
  const fail = (error: unknown): void => {
    failure ??= error;
    stop();
  };
  const onAbort = (): void => {
    aborted = true;
    stop();
  };
  const timeoutTimer = setTimeout(
    () => {
      timedOut = true;
      stop();
    },
    Math.min(options.timeoutMs, MAX_TIMER_MS),
  );
  signal?.addEventListener('abort', onAbort, { once: true });

  const finish = (): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timeoutTimer);
    clearTimeout(drainTimer);
    signal?.removeEventListener('abort', onAbort);
    kill?.settle();
    stdin?.destroy();
    try {
      stdout.flush();
      stderr.flush();
    } catch (error) {
      failure ??= error;
    }
    if (failure !== undefined) {
      reject(failure);
    } else if (aborted && signal) {
      reject(abortedError(signal));
    } else {
      const result: CommandResult = {
        command,
        exitCode: timedOut ? -1 : exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timeoutOccurred: timedOut,
        durationMs,
      };
      const facts = { timedOut, exitCode, exitSignal };
      void classifyWithOomKills(facts, oomKillsBefore).then((terminationReason) => {
        resolve(terminationReason ? { ...result, terminationReason } : result);
      });
    }
  };
  const maybeFinish = (): void => {
    if (exited && openStreams === 0) finish();
  };
  // Stop capturing but keep the pipes open and drained, unref'd, for background holders.
  const detachStreams = (): void => {
    streams.forEach((stream, index) => {
      stream.off('data', handlers[index] as (chunk: Uint8Array) => void);
      stream.resume();
      (stream as { unref?: () => void }).unref?.();
    });
    finish();
  };

  const onData = (capture: OutputCapture) => (chunk: Uint8Array) => {
    if (settled || failure !== undefined) return;
    try {
      capture.write(chunk);
    } catch (error) {
      fail(error);
    }
  };
  const handlers = [onData(stdout), onData(stderr)];
  streams.forEach((stream, index) => {
    stream.on('data', handlers[index] as (chunk: Uint8Array) => void);
  });
  for (const stream of streams) {
    stream.once('close', () => {
      openStreams--;
      maybeFinish();
    });
  }

  const onExit = ({ code, signal: killedBy }: ChildExit): void => {
    exited = true;
    durationMs = performance.now() - startedAt;
    exitSignal = killedBy;
    exitCode = code ?? (killedBy ? 128 + (osConstants.signals[killedBy] ?? 0) : -1);
    // Bash is done: a later timeout or abort must not kill what it left in the background.
    clearTimeout(timeoutTimer);
    signal?.removeEventListener('abort', onAbort);
    if (openStreams === 0) {
      finish();
      return;
    }
    // Something still holds the pipes: drain briefly; setImmediate lets one more poll
    // phase read data that is already waiting.
    startDrain();
  };
  function startDrain(): void {
    drainTimer = setTimeout(
      () =>
        setImmediate(() => {
          if (paused) drainDeferred = true;
          else detachStreams();
        }),
      OUTPUT_DRAIN_MS,
    );
  }
  const onSpawnFailure = (error: unknown): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timeoutTimer);
    signal?.removeEventListener('abort', onAbort);
    reject(error);
  };
  child.exit.then(onExit, onSpawnFailure);

  return {
    pid,
    writeStdin: (data) => writeToStdin(stdin, options.stdin === 'pipe', data),
    closeStdin: () => {
      stdin?.end();
    },
    signal: (name) => {
      if (pid !== undefined && !exited) signalProcessGroup(pid, name);
    },
    pauseOutput: () => {
      if (settled || paused) return;
      paused = true;
      for (const stream of streams) stream.pause();
    },
    resumeOutput: () => {
      if (!paused) return;
      paused = false;
      for (const stream of streams) stream.resume();
      if (drainDeferred) {
        drainDeferred = false;
        startDrain();
      }
    },
  };
}

/** The handle of a command whose shell never started: `result` rejects, controls do nothing. */
function unstartedHandle(result: Promise<CommandResult>): LocalCommandHandle {
  return {
    pid: undefined,
    result,
    writeStdin: () => writeToStdin(null, false, ''),
    closeStdin: () => {},
    signal: () => {},
    pauseOutput: () => {},
    resumeOutput: () => {},
  };
}
