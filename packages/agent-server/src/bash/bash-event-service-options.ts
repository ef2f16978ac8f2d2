import type { CommandSandbox } from '@agent-workspace/core';
import type { PathWalker } from '@agent-workspace/core/internal';
import type { ProcessTreeWatch } from '@agent-workspace/runtime-plugins';

/** Options of `BashEventService`. */
export interface BashEventServiceOptions {
  /** Resolves cwds; its working directory is the default cwd. */
  paths: PathWalker;
  /** Runs commands in this sandbox when set. */
  sandbox?: CommandSandbox | undefined;
  /** Variables every command gets on top of the server's environment. */
  environment?: Record<string, string> | undefined;
  /** Where history is persisted; unset keeps it in memory. */
  stateDir?: string | undefined;
  /** Events older than this are dropped (checked periodically). */
  retentionSeconds: number;
  /** Bound on the size of kept events (as logged); the oldest finished commands go first. */
  maxBytes: number;
  /** Bound on the size of one command's kept events; its oldest outputs give way to a marker. */
  maxCommandBytes: number;
  /** Most commands running at once; more are refused with `RESOURCE_EXHAUSTED`. */
  maxConcurrentCommands: number;
  /** How long a command that is not detached runs on once its last follower left. */
  orphanGraceMs: number;
  /**
   * Registers each command's process tree with a memory monitor, which kills a tree over its
   * limit; the command's output then says so. Default: commands are not watched.
   */
  watchProcessTree?: ((watch: ProcessTreeWatch) => () => void) | undefined;
  /** Receives persistence failures and warnings; default: a process warning. */
  onError?: ((error: unknown) => void) | undefined;
}
