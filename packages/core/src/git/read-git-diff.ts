import type { GitDiff } from '@agent-workspace/protocol';

/** Input of {@link readGitDiff}. */
export interface ReadGitDiffOptions {
  /** Absolute path of a file inside a repository. */
  path: string;
  /** Base ref; mutually exclusive with `commit`. */
  ref?: string;
  /** Base commit sha (4..64 hex); mutually exclusive with `ref`. */
  commit?: string;
  signal?: AbortSignal;
}

/** Reads a file's current and base content. TODO(helper): implement. */
export async function readGitDiff(_options: ReadGitDiffOptions): Promise<GitDiff> {
  throw new Error('not implemented');
}
