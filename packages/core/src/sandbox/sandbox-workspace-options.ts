import { positiveOption } from '../errors/positive-option.js';

/** Default bound on `start()` (create, start, wait until alive), in milliseconds. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 120_000;
/** Default bound on each pause, resume and release step, in milliseconds. */
export const DEFAULT_LIFECYCLE_TIMEOUT_MS = 30_000;
/**
 * Default time a running command waits for a dropped connection to its sandbox to come back,
 * in milliseconds. Short: a sandbox's agent-server is close by, so a drop means it died.
 */
export const DEFAULT_SANDBOX_RECONNECT_TIMEOUT_MS = 3_000;
/** Options of {@link SandboxWorkspace}. */
export interface SandboxWorkspaceOptions {
  /** Absolute directory inside the sandbox that relative paths and the default cwd resolve against. */
  workingDir: string;
  /** Bound on `start()`: create the sandbox, start it, wait until its agent-server answers. Default 120 000 ms. */
  startupTimeoutMs?: number | undefined;
  /** Bound on each pause, resume and release step (`close()` takes at most about this). Default 30 000 ms. */
  lifecycleTimeoutMs?: number | undefined;
  /** How long a running command waits for a dropped connection before the sandbox is checked. Default 3 000 ms. */
  reconnectTimeoutMs?: number | undefined;
  /** Passed to the inner `RemoteWorkspace`. */
  requestTimeoutMs?: number | undefined;
  /** Passed to the inner `RemoteWorkspace`. */
  connectTimeoutMs?: number | undefined;
  /** Passed to the inner `RemoteWorkspace`. */
  maxOutputBytes?: number | undefined;
  /** How many of the sandbox's last log lines go into error messages. Default 40. */
  logTailLines?: number | undefined;
}

/** {@link SandboxWorkspaceOptions} with defaults applied and checked. */
export interface ResolvedSandboxWorkspaceOptions {
  startupTimeoutMs: number;
  lifecycleTimeoutMs: number;
  logTailLines: number;
  /** Options of the inner `RemoteWorkspace` (without host, key and workingDir). */
  remote: {
    reconnectTimeoutMs: number;
    requestTimeoutMs?: number | undefined;
    connectTimeoutMs?: number | undefined;
    maxOutputBytes?: number | undefined;
  };
}

/** Applies defaults; a value that is not a positive finite number is `INVALID_ARGUMENT`. */
export function resolveSandboxWorkspaceOptions(
  options: SandboxWorkspaceOptions,
): ResolvedSandboxWorkspaceOptions {
  return {
    startupTimeoutMs: positiveOption(
      options.startupTimeoutMs,
      DEFAULT_STARTUP_TIMEOUT_MS,
      'startupTimeoutMs',
    ),
    lifecycleTimeoutMs: positiveOption(
      options.lifecycleTimeoutMs,
      DEFAULT_LIFECYCLE_TIMEOUT_MS,
      'lifecycleTimeoutMs',
    ),
    logTailLines: positiveOption(options.logTailLines, 40, 'logTailLines'),
    remote: {
      reconnectTimeoutMs: positiveOption(
        options.reconnectTimeoutMs,
        DEFAULT_SANDBOX_RECONNECT_TIMEOUT_MS,
        'reconnectTimeoutMs',
      ),
      requestTimeoutMs: options.requestTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      maxOutputBytes: options.maxOutputBytes,
    },
  };
}
