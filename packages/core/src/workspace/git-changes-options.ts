import type { GitChangesTruncation } from '@agent-workspace/protocol';

/** Options of `Workspace.gitChanges`. */
export interface GitChangesOptions {
  /**
   * Base ref: a non-empty string that does not start with `-` (else `INVALID_ARGUMENT` naming
   * `ref`); default: the display policy (what was changed here, committed or not).
   */
  ref?: string | undefined;
  /**
   * Called once, before the changes are returned, when the search for repositories nested below
   * the path stopped at one of its bounds: the changes are then those found until it stopped,
   * and the argument names the bound (`depth`, `repositories`, `directories` or `time`; see
   * `GIT_CHANGES_TRUNCATIONS`). Not called when the search looked everywhere.
   */
  onTruncated?: ((truncation: GitChangesTruncation) => void) | undefined;
}
