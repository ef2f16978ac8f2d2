/** One record of `git worktree list --porcelain -z`. */
export interface WorktreeRecord {
  /** Absolute path of the worktree, exactly as git printed it (spaces, newlines and all). */
  path: string;
  /** HEAD commit id; absent for a bare repository or an unborn branch. */
  head?: string | undefined;
  /** Full ref of the checked-out branch (`refs/heads/...`); absent when detached or bare. */
  branch?: string | undefined;
  detached: boolean;
  bare: boolean;
  /** Present when locked: the reason, `''` when none was given. */
  locked?: string | undefined;
  /** Present when git would prune it: the reason, `''` when none was given. */
  prunable?: string | undefined;
}

/**
 * Parses the output of `git worktree list --porcelain -z`: attributes end with NUL and each
 * record with an extra NUL, so nothing is quoted and a path or lock reason may hold spaces or
 * newlines. Each attribute is `label` or `label SP value`; labels it does not know are skipped,
 * as git's documentation asks. A record without a `worktree` line is dropped.
 */
export function parseWorktreePorcelain(output: string): WorktreeRecord[] {
  const records: WorktreeRecord[] = [];
  let current: WorktreeRecord | undefined;
  const finish = () => {
    if (current) records.push(current);
    current = undefined;
  };
  for (const line of output.split('\0')) {
    if (line === '') {
      finish();
      continue;
    }
    const space = line.indexOf(' ');
    const label = space === -1 ? line : line.slice(0, space);
    const value = space === -1 ? '' : line.slice(space + 1);
    if (label === 'worktree') {
      finish();
      current = { path: value, detached: false, bare: false };
      continue;
    }
    if (!current) continue;
    switch (label) {
      case 'HEAD':
        current.head = value;
        break;
      case 'branch':
        current.branch = value;
        break;
      case 'detached':
        current.detached = true;
        break;
      case 'bare':
        current.bare = true;
        break;
      case 'locked':
        current.locked = value;
        break;
      case 'prunable':
        current.prunable = value;
        break;
      default:
        break;
    }
  }
  finish();
  return records;
}

/** `refs/heads/feature/x` → `feature/x`; other refs are returned unchanged. */
export function shortBranchName(ref: string): string {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}
