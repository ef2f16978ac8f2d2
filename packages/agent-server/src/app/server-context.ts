import type { CommandSandbox } from '@agent-workspace/core';
import type { PathWalker } from '@agent-workspace/core/internal';
import type { MemoryMonitor, PluginHost } from '@agent-workspace/runtime-plugins';
import type { ResolvedAgentServerOptions } from '../agent-server-options.js';
import type { BashEventService } from '../bash/bash-event-service.js';
import type { InstanceRegistry } from '../runtime/instance-registry.js';

/** What every route and socket of the server shares. */
export interface ServerContext {
  options: ResolvedAgentServerOptions;
  bash: BashEventService;
  /**
   * Resolves client paths (relative ones against `workingDir`) race-free, from open directories;
   * with `confineToWorkingDir`, nothing outside it is reached (see `PathWalker`).
   */
  paths: PathWalker;
  /** The command sandbox commands and git run in, when the server has one. */
  sandbox: CommandSandbox | undefined;
  /** Journal of what the server owns (temporary upload files), for the next start's sweep. */
  runtime: InstanceRegistry;
  /** Aborted when the server starts closing: in-flight uploads stop and clean up. */
  shutdownSignal: AbortSignal;
  /** Keeps `work` (an upload) in the set that `close()` waits for. */
  track<T>(work: Promise<T>): Promise<T>;
  /** True when a session key is required. */
  authRequired: boolean;
  /** Constant-time check of a session API key. */
  checkSessionKey: (candidate: unknown) => boolean;
  /** Measures the server's and its process trees' memory; kills a tree over the limit. */
  memory: MemoryMonitor;
  /** The runtime plugins, when the server was asked for any; started after the app is built. */
  plugins: PluginHost | undefined;
  /** `Date.now()` at start-up. */
  startedAt: number;
  /** Records activity for `/server_info` `idle_time` (bash, file and git handlers call it). */
  touch: () => void;
  /** `Date.now()` of the last activity. */
  lastActivityAt: () => number;
}
