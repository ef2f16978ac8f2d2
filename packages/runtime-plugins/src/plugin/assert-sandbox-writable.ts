import { abortedError, type CommandSandbox, WorkspaceError } from '@agent-workspace/core';
import { SYSTEM_PATH, signalProcessGroup, spawnChild } from '@agent-workspace/core/internal';

/** Options of {@link assertSandboxWritable}. */
export interface AssertSandboxWritableOptions {
  sandbox: CommandSandbox;
  /** Absolute host path that must be a writable directory inside, at the same path. */
  dir: string;
  /** What the directory is, for the error: `the python plugin's state directory`. */
  subject: string;
  signal?: AbortSignal | undefined;
}

/**
 * Checks, with one short process inside the sandbox, that `dir` is a writable directory there at
 * the same path, so a sandbox set up without it fails the plugin's start with a sentence saying
 * what to bind rather than a kernel or browser that cannot start for reasons of its own.
 *
 * @throws WorkspaceError `INVALID_CONFIG` when it is not; `SANDBOX_EXITED` from `wrap` once the
 * sandbox is gone; `ABORTED` when `signal` fires.
 */
export async function assertSandboxWritable(options: AssertSandboxWritableOptions): Promise<void> {
  const { sandbox, dir, signal } = options;
  if (signal?.aborted) throw abortedError(signal);
  // Through the sandbox like every process the server starts; a test of two file modes needs
  // no more environment than the system's PATH (so no key of the server's can reach it).
  const child = spawnChild({
    file: '/bin/sh',
    args: ['-c', 'test -d "$1" && test -w "$1"', 'sh', dir],
    cwd: sandbox.workingDir,
    env: { PATH: SYSTEM_PATH },
    detached: true,
    sandbox,
  });
  child.stdout?.resume();
  child.stderr?.resume();
  // The launch relays (ignores) SIGTERM; only SIGKILL to its group ends it.
  const stop = () => {
    if (child.pid !== undefined) signalProcessGroup(child.pid, 'SIGKILL');
  };
  signal?.addEventListener('abort', stop, { once: true });
  let code: number | null;
  try {
    ({ code } = await child.exit);
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  if (signal?.aborted) throw abortedError(signal);
  if (code === 0) return;
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `${options.subject} ${dir} is not a writable directory inside the command sandbox; bind it read-write at the same path (the sandbox's writablePaths)`,
    details: { dir },
  });
}
