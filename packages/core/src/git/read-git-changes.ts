import type { GitChange } from '@agent-workspace/protocol';

/** Input of {@link readGitChanges}. */
export interface ReadGitChangesOptions {
  /** Absolute path of a directory inside (or at the root of) a repository. */
  path: string;
  /** Base ref; default: the display policy of the reference (see module docs). */
  ref?: string;
  signal?: AbortSignal;
}

/** Lists changed paths of a repository. TODO(helper): implement. */
export async function readGitChanges(_options: ReadGitChangesOptions): Promise<GitChange[]> {
  throw new Error('not implemented');
}
