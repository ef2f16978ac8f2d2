import type { CommandResult } from '@agent-workspace/protocol';
import type { CommandRequest } from '../workspace/base-workspace.js';

/** Default cap on captured bytes per stream (10 MiB). */
export const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;

/** Input of {@link runLocalCommand}. */
export interface RunLocalCommandOptions extends CommandRequest {
  /** Cap on captured bytes per stream; the tail is kept. */
  maxOutputBytes: number;
}

/** Runs a command with `bash -c` on this machine. TODO(helper): implement. */
export async function runLocalCommand(_options: RunLocalCommandOptions): Promise<CommandResult> {
  throw new Error('not implemented');
}
