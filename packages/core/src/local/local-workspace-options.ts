import type { BubblewrapSandboxOptions } from '../command-sandbox/bubblewrap-sandbox.js';

/** Default of {@link LocalWorkspaceOptions.maxFileWatchers}. */
export const DEFAULT_MAX_FILE_WATCHERS = 32;

/** Options of {@link LocalWorkspace}. */
export interface LocalWorkspaceOptions {
  /** Directory relative paths resolve against. Relative values resolve against `process.cwd()`. Default `process.cwd()`. */
  workingDir?: string | undefined;
  /** Cap on captured bytes per stream; the tail is kept. Default 10 MiB. */
  maxOutputBytes?: number | undefined;
  /** Variables merged over `process.env` for every command (a command's own `env` wins). */
  env?: Record<string, string> | undefined;
  /**
   * Run commands and git in a {@link BubblewrapSandbox} around `workingDir` (Linux only):
   * `true`, or its `network` (`true`, `false` or `{ allowHosts }`), `onEgressRefused`,
   * `readOnlyPaths` and `writablePaths`. Started on first use and closed by `close()`. With
   * `network: { allowHosts }` every command gets the sandbox's proxy variables
   * (`proxyEnvironment('command')`) under the workspace's and its own `env`. It confines
   * commands and git, not this process's own `fileUpload` / `fileDownload` calls, which stay
   * host-side.
   */
  sandbox?: true | LocalSandboxOptions | undefined;
  /**
   * Most watchers (`watch`) open at once; one more is `RESOURCE_EXHAUSTED`. Default
   * `DEFAULT_MAX_FILE_WATCHERS` (32).
   */
  maxFileWatchers?: number | undefined;
}

/** Sandbox options of a {@link LocalWorkspace}; its working dir is the workspace's. */
export type LocalSandboxOptions = Omit<BubblewrapSandboxOptions, 'workingDir'>;
