// Trust boundary: the processes a plugin keeps running (a python kernel) are exempt from the
// server's workspace, by design: a workspace command runs to its end and returns its output,
// while a kernel is a long-lived process in its own process group that the plugin talks to over
// sockets for many cells; no workspace operation can hold one. Every such process starts here,
// and nowhere else, with every part of the boundary the workspace's commands get, from the same
// pieces:
// - confinement, sandbox and egress policy: core's `spawnChild` inside the host's command sandbox
//   (`sandbox.wrap`), whose proxy variables the host's environment carries;
// - key scrubbing: that environment is core's `childEnvironment`, without the server's keys;
// - journal: the agent-server's environment also carries its instance variable, so the next
//   server's start-up sweep ends a killed server's kernel and whatever its cells started, like its
//   commands (agent-server's reliability suite `trust-boundary` kills a server under a kernel to
//   check); their files live in the plugin's state directory, which the sweep removes, unless
//   the server was given a `--state-dir` to keep.
import type { CommandSandbox, ProcessLaunch } from '@agent-workspace/core';
import { childEnvironment, type SpawnedChild, spawnChild } from '@agent-workspace/core/internal';

/** Options of {@link PluginProcesses}: the boundary the host gives its plugins. */
export interface PluginProcessesOptions {
  /** The command sandbox every process starts in; none: processes run on this machine. */
  sandbox?: CommandSandbox | undefined;
  /**
   * The whole environment of every process (already scrubbed of the server's keys); default
   * `childEnvironment()`: this process's without them. Never `process.env`.
   */
  environment?: Readonly<Record<string, string>> | undefined;
}

/** One process for {@link PluginProcesses.start}. */
export interface PluginProcessStart extends ProcessLaunch {
  /** Variables set on top of the host's environment (the program's own, never keys). */
  env?: Readonly<Record<string, string>> | undefined;
  /** Leader of a new process group, so a signal to the group reaches what it started. */
  detached?: boolean | undefined;
}

/**
 * Starts the long-lived processes of a plugin inside the boundary its host was given: in the
 * host's command sandbox when it has one, with the host's environment. The only way a plugin's
 * kernel is started (see the trust-boundary note at the top of this file).
 */
export class PluginProcesses {
  /** The command sandbox processes start in, if any. */
  readonly sandbox: CommandSandbox | undefined;
  /** The environment every process gets, before its own variables. */
  readonly environment: Readonly<Record<string, string>>;

  constructor(options: PluginProcessesOptions = {}) {
    this.sandbox = options.sandbox;
    this.environment = options.environment ?? childEnvironment();
  }

  /**
   * Starts one process. A failure to start (descriptors exhausted, a sandbox that is gone) shows
   * in the child's `exit`, as `spawnChild` reports it.
   */
  start({ env, detached, ...launch }: PluginProcessStart): SpawnedChild {
    return spawnChild({
      ...launch,
      env: { ...this.environment, ...env },
      detached,
      sandbox: this.sandbox,
    });
  }
}
