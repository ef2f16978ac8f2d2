import type { CommandSandbox } from '@agent-workspace/core';
import type { PathWalker } from '@agent-workspace/core/internal';
import type { MemoryMonitor, PluginHost } from '@agent-workspace/runtime-plugins';
import type { ResolvedAgentServerOptions } from '../agent-server-options.js';
import type { BashEventService } from '../bash/bash-event-service.js';
import type { ConversationService } from '../conversations/conversation-service.js';
import type { InstanceRegistry } from '../runtime/instance-registry.js';
import type { DeferredInit } from './deferred-init.js';
import type { SessionAuth } from './session-auth.js';

/**
 * What every route and socket of the server shares: its options, its services (made with the
 * context by `createAgentServer` and closed with it), the session-key check, the shutdown
 * signal and the activity clock.
 */
export interface ServerContext {
  options: ResolvedAgentServerOptions;

  // Services.
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
  /** Measures the server's and its process trees' memory; kills a tree over the limit. */
  memory: MemoryMonitor;
  /** The runtime plugins, when the server was asked for any; started after the app is built. */
  plugins: PluginHost | undefined;
  /**
   * The conversations, shared by the conversation routes and the events socket; each acts
   * through a `ServerWorkspace` rooted at its `working_dir`.
   */
  conversations: ConversationService;

  /** The session-key check of the `/api` group and the websockets. */
  auth: SessionAuth;
  /** The dormant state of a server started with `deferInit`; `undefined` otherwise. */
  init: DeferredInit | undefined;

  // Shutdown.
  /** Aborted when the server starts closing: in-flight uploads stop and clean up. */
  shutdownSignal: AbortSignal;
  /** Keeps `work` (an upload) in the set that `close()` waits for. */
  track<T>(work: Promise<T>): Promise<T>;

  // Activity, for `/server_info`.
  /** `Date.now()` at start-up. */
  startedAt: number;
  /** Records activity for `/server_info` `idle_time` (bash, file and git handlers call it). */
  touch: () => void;
  /** `Date.now()` of the last activity. */
  lastActivityAt: () => number;
}
