import type { Readable } from 'node:stream';
import { SYSTEM_PATH } from '../internal/process/find-executable.js';
import type { SpawnedChild } from '../internal/process/spawn-child.js';
import { HOLDER_READY_LINE } from './bubblewrap-arguments.js';
import { spawnUntilReady } from './spawn-until-ready.js';

/** Longest wait for a sandbox holder to be set up. */
export const HOLDER_START_TIMEOUT_MS = 10_000;

/** Kept bytes of bwrap's standard error, for error messages. */
const STDERR_TAIL_BYTES = 8 * 1024;

/** Input of {@link startHolder}. */
export interface StartHolderOptions {
  /** Absolute path of bwrap. */
  bwrap: string;
  /** From `holderArguments()`. */
  args: string[];
  signal?: AbortSignal | undefined;
}

/** A running sandbox holder. */
export interface SandboxHolder {
  /** The bwrap process this process started (its process group leader). */
  readonly process: SpawnedChild;
  /** Host pid of the sandbox's pid 1, from bwrap's `--info-fd`. */
  readonly pid: number;
  /** The last bytes bwrap wrote to its standard error. */
  stderr(): string;
}

/**
 * Starts bwrap and waits (at most {@link HOLDER_START_TIMEOUT_MS}) until its `--info-fd` gave the
 * host pid of the sandbox and its payload printed the ready line, which comes after every mount.
 * The holder is unref'd: it does not keep this process alive, and dies with it.
 *
 * @throws WorkspaceError `SPAWN_ERROR` (with bwrap's standard error) when bwrap cannot start,
 * exits or is too slow; `ABORTED` when `signal` fires. The holder is killed either way.
 */
export async function startHolder(options: StartHolderOptions): Promise<SandboxHolder> {
  const holder = await spawnUntilReady({
    spawn: {
      file: options.bwrap,
      args: options.args,
      cwd: '/',
      env: { PATH: SYSTEM_PATH },
      extraOutputs: 1,
    },
    // The sandbox's pid, once the ready line came too.
    ready: (child) =>
      Promise.all([readChildPid(child.extraOutputs[0]), readLine(child.stdout)]).then(
        ([pid]) => pid,
      ),
    timeoutMs: HOLDER_START_TIMEOUT_MS,
    stderrTailBytes: STDERR_TAIL_BYTES,
    words: { subject: 'the command sandbox', notReady: 'not ready', exited: 'bwrap' },
    signal: options.signal,
  });
  return { process: holder.process, pid: holder.value, stderr: holder.stderr };
}

/** The `child-pid` of bwrap's `--info-fd` JSON; never settles when it does not come. */
function readChildPid(info: Readable | undefined): Promise<number> {
  return new Promise((resolve) => {
    let text = '';
    info?.setEncoding('utf8');
    info?.on('data', (chunk: string) => {
      text += chunk;
      try {
        const pid = (JSON.parse(text) as Record<string, unknown>)['child-pid'];
        if (typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0) resolve(pid);
      } catch {
        // Incomplete JSON: wait for more.
      }
    });
  });
}

/** Resolves once `stream` printed the holder's ready line; never settles otherwise. */
function readLine(stream: Readable | null): Promise<void> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      if (!text.split('\n').includes(HOLDER_READY_LINE)) return;
      stream?.off('data', onData);
      resolve();
    };
    stream?.on('data', onData);
  });
}
