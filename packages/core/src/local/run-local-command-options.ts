import type { CommandRequest } from '../workspace/base-workspace.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';

/** Input of `runLocalCommand` (and the base of `startLocalCommand`'s). */
export interface RunLocalCommandOptions extends CommandRequest {
  /** Cap on captured bytes per stream; the tail is kept. */
  maxOutputBytes: number;
  /** Shell to run `-c <command>` with. Default: `bash` found once on this process's `PATH`. */
  shell?: string | undefined;
  /**
   * Run the command inside this sandbox. `cwd` is then the path inside it (the working dir has
   * the same path on both sides); a shell missing inside gives exit code 127, not `SPAWN_ERROR`.
   */
  sandbox?: CommandSandbox | undefined;
}
