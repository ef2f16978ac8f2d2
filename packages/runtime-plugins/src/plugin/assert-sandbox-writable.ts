import { spawn } from 'node:child_process';
import { abortedError, type CommandSandbox, WorkspaceError } from '@agent-workspace/core';
import { SYSTEM_PATH } from '@agent-workspace/core/internal';

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
  const launch = sandbox.wrap({
    file: '/bin/sh',
    args: ['-c', 'test -d "$1" && test -w "$1"', 'sh', dir],
    cwd: sandbox.workingDir,
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(launch.file, launch.args, {
      cwd: launch.cwd,
      env: { PATH: SYSTEM_PATH },
      stdio: 'ignore',
      signal,
      // The launch relays (ignores) SIGTERM; only SIGKILL ends it.
      killSignal: 'SIGKILL',
    });
    child.once('error', (error) =>
      reject(signal?.aborted ? abortedError(signal) : (error as Error)),
    );
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  if (code === 0) return;
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `${options.subject} ${dir} is not a writable directory inside the command sandbox; bind it read-write at the same path (the sandbox's writablePaths)`,
    details: { dir },
  });
}
