/** A program to start: what to execute, its arguments and its working directory. */
export interface ProcessLaunch {
  /** Program path (or a name looked up on `PATH`). */
  file: string;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
}

/**
 * A private directory on the host's disk for the launches of one job (git's scratch index and
 * object store, say), made by {@link CommandSandbox.createScratch}.
 */
export interface SandboxScratch extends AsyncDisposable {
  /** Where the launches wrapped with this scratch see the directory, read-write. */
  readonly path: string;
  /** Removes the directory and what it holds. Idempotent. */
  remove(): Promise<void>;
}

/** Options of {@link CommandSandbox.wrap}. */
export interface WrapOptions {
  /** Show this scratch (of the same sandbox) to the launch, and to no other. */
  scratch?: SandboxScratch | undefined;
}

/**
 * Confines the commands (and git calls) of a workspace. `wrap` turns a launch into the host-side
 * launch that runs the same program, arguments and cwd inside the sandbox; it is synchronous
 * because it is on every command's path. `close()` ends every process inside; idempotent.
 */
export interface CommandSandbox extends AsyncDisposable {
  /** The directory commands may read and write; inside the sandbox it has the same path. */
  readonly workingDir: string;
  /**
   * Whether commands reach the host's network directly; `false` both for loopback only and for
   * an egress policy (where they reach listed hosts through a proxy).
   */
  readonly network: boolean;
  /**
   * The host-side launch that runs `launch` inside the sandbox.
   *
   * @throws WorkspaceError `SANDBOX_EXITED` once the sandbox was closed or died;
   * `INVALID_ARGUMENT` (field `scratch`) for a scratch of another sandbox or one removed.
   */
  wrap(launch: ProcessLaunch, options?: WrapOptions): ProcessLaunch;
  /**
   * Makes an empty private directory on the host's disk that only launches wrapped with it see
   * (each in a mount namespace of its own, at `scratch.path`); the sandbox's other commands do
   * not. Removed by `remove()`, and with the sandbox when it closes.
   *
   * @throws WorkspaceError `SANDBOX_EXITED` once the sandbox was closed or died.
   */
  createScratch(): Promise<SandboxScratch>;
  /**
   * Variables that send a launch's HTTP and HTTPS clients through the sandbox's egress proxy,
   * with `source` (who asks: `bash`, `kernel`, ...) as the proxy user name, so each refusal
   * names it: `HTTP_PROXY`, `HTTPS_PROXY`, `http_proxy`, `https_proxy`
   * (`http://<source>@127.0.0.1:<port>`), `NO_PROXY`, `no_proxy` (`localhost,127.0.0.1,::1`:
   * the sandbox's own loopback) and `NODE_USE_ENV_PROXY=1`. An empty object when the sandbox has
   * no egress policy. Merge them under the launch's own variables.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` (field `source`) unless `source` is 1 to 64 of
   * `A-Z a-z 0-9 . _ ~ -`.
   */
  proxyEnvironment(source: string): Record<string, string>;
  /** Kills every process in the sandbox and waits until it is gone. Idempotent. */
  close(): Promise<void>;
}
