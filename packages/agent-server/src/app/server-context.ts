import type { ResolvedAgentServerOptions } from '../agent-server-options.js';
import type { BashEventService } from '../bash/bash-event-service.js';

/** What every route and socket of the server shares. */
export interface ServerContext {
  options: ResolvedAgentServerOptions;
  bash: BashEventService;
  /** True when a session key is required. */
  authRequired: boolean;
  /** Constant-time check of a session API key. */
  checkSessionKey: (candidate: unknown) => boolean;
  /** `Date.now()` at start-up. */
  startedAt: number;
  /** Records activity for `/server_info` `idle_time` (bash, file and git handlers call it). */
  touch: () => void;
  /** `Date.now()` of the last activity. */
  lastActivityAt: () => number;
  /**
   * Resolves a client path: relative paths against `workingDir`; with `confineToWorkingDir`,
   * throws an `HttpError` 403 naming `field` when it resolves (symlinks included) outside.
   */
  resolvePath: (input: string, field: string) => Promise<string>;
}
