/** Options every sandbox hook gets. */
export interface SandboxHookOptions {
  /** Aborts when the step's time is up or the workspace is closed; hooks should pass it on. */
  signal: AbortSignal;
}

/** Options of the `sandboxLogs()` hook. */
export interface SandboxLogsOptions extends SandboxHookOptions {
  /** How many of the last lines to return. */
  tailLines: number;
}

/** Options of the `releaseSandbox()` hook. */
export interface ReleaseSandboxOptions extends SandboxHookOptions {
  /** `close` for a normal close, `failed-start` when `start()` failed (always release then). */
  reason: 'close' | 'failed-start';
}
