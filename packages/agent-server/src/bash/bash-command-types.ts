import type { CommandResult, OutputStreamMasker } from '@agent-workspace/core';
import type { LocalCommandHandle } from '@agent-workspace/core/internal';
import type { BashCommandWire, BashOutputWire } from '@agent-workspace/protocol';
import type { StoredBashEvent } from './bash-event-records.js';
import type { StoredEventWire } from './persisted-bash-event.js';

/** A command to run. */
export interface BashCommandRequest {
  command: string;
  /** The client's cwd: absolute or relative to the working directory; default the working dir. */
  cwd?: string | undefined;
  /** Seconds before the process tree is killed; fractions allowed. */
  timeoutSeconds: number;
  /** Variables merged over the server's environment (which never includes session keys). */
  env?: Record<string, string> | undefined;
  /**
   * Masks each output stream before it is stored or published (a conversation's secrets); the
   * captured `completion` output is not masked.
   */
  outputMasker?: (() => OutputStreamMasker) | undefined;
  /** Keep stdin open for {@link RunningBashCommand.handle} writes; otherwise it reads EOF. */
  stdin?: boolean | undefined;
  /** Keep the whole output (each stream capped at 10 MiB, tail kept) for `completion`. */
  captureOutput?: boolean | undefined;
  /**
   * Run on when nobody follows it (`start_bash_command`, the bash-events socket). Otherwise the
   * starter holds the command ({@link StartedBashCommand.release}) and it is ended after the
   * orphan grace once its last follower is gone.
   */
  detached: boolean;
}

/** How a command ended. */
export interface BashCommandCompletion {
  /** Its final `BashOutput` (exit code set, no output). */
  final: BashOutputWire;
  /** Exit details; `stdout`/`stderr` hold the whole output only with `captureOutput`. */
  result: CommandResult;
}

/** A command that was started. */
export interface StartedBashCommand {
  event: BashCommandWire;
  pid: number | undefined;
  /** Resolves after the final event was recorded; never rejects. */
  completion: Promise<BashCommandCompletion>;
  /** The starter's hold on a command that is not detached; call it when the starter goes away. */
  release: () => void;
}

/** Control over a running command. */
export interface RunningBashCommand {
  handle: LocalCommandHandle;
  /** True when it was started with `stdin`. */
  stdin: boolean;
  completion: Promise<BashCommandCompletion>;
}

/** Paged search result of `BashEventService.search`. */
export interface BashEventSearchResult {
  items: StoredEventWire[];
  nextPageId: string | null;
}

/** A listener of new events. */
export type BashEventListener = (event: StoredBashEvent) => void;
