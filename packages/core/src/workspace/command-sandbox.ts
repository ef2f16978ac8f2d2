/** A program to start: what to execute, its arguments and its working directory. */
export interface ProcessLaunch {
  /** Program path (or a name looked up on `PATH`). */
  file: string;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
}

/**
 * Confines the commands (and git calls) of a workspace. `wrap` turns a launch into the host-side
 * launch that runs the same program, arguments and cwd inside the sandbox; it is synchronous
 * because it is on every command's path. `close()` ends every process inside; idempotent.
 */
export interface CommandSandbox extends AsyncDisposable {
  /** The directory commands may read and write; inside the sandbox it has the same path. */
  readonly workingDir: string;
  /** Whether commands reach the host's network. */
  readonly network: boolean;
  /**
   * The host-side launch that runs `launch` inside the sandbox.
   *
   * @throws WorkspaceError `SANDBOX_EXITED` once the sandbox was closed or died.
   */
  wrap(launch: ProcessLaunch): ProcessLaunch;
  /** Kills every process in the sandbox and waits until it is gone. Idempotent. */
  close(): Promise<void>;
}
