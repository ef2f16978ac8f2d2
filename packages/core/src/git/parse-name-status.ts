import type { GitChange, GitChangeStatus } from '@agent-workspace/protocol';
import { WorkspaceError } from '../errors/workspace-error.js';

/** Splits NUL-terminated git output (`-z`) into its records; paths are kept byte for byte. */
export function splitNul(output: string): string[] {
  if (output.length === 0) return [];
  const records = output.split('\0');
  // A terminated list ends with an empty record after the last NUL.
  if (records[records.length - 1] === '') records.pop();
  return records;
}

/** One record of `git diff --name-status -z`. */
export interface NameStatusRecord {
  /** Status token as git printed it, e.g. `M`, `A`, `R087`. */
  status: string;
  /** The path (the new one for renames and copies). */
  path: string;
  /** The old path of a rename or the source of a copy. */
  fromPath?: string;
}

/**
 * Splits `git diff --name-status -z` output into records: a status token followed by one path,
 * or by two (old, new) for renames (`R<score>`) and copies (`C<score>`). Truncated or malformed
 * output is a `GIT_ERROR`.
 */
export function parseNameStatusRecords(output: string): NameStatusRecord[] {
  const tokens = splitNul(output);
  const records: NameStatusRecord[] = [];
  let index = 0;
  while (index < tokens.length) {
    const status = tokens[index] ?? '';
    const paired = status.startsWith('R') || status.startsWith('C');
    const pathIndex = index + (paired ? 2 : 1);
    const path = tokens[pathIndex];
    if (!/^[A-Z][0-9]*$/.test(status) || path === undefined || path === '') {
      throw new WorkspaceError({
        code: 'GIT_ERROR',
        message: `unexpected git diff --name-status output near record ${index}: ${JSON.stringify(status)}`,
        details: { status },
      });
    }
    records.push(
      paired ? { status, path, fromPath: tokens[index + 1] as string } : { status, path },
    );
    index = pathIndex + 1;
  }
  return records;
}

/**
 * Parses `git diff --name-status -z` output into changes. Mapping: `A` ADDED, `D` DELETED, `R`
 * MOVED (reported at the new path), `C` ADDED (the copy), and `M`, `T` (type change), `U`
 * (unmerged) or any other letter UPDATED.
 */
export function parseNameStatus(output: string): GitChange[] {
  return parseNameStatusRecords(output).map((record) => ({
    status: statusOf(record.status.charAt(0)),
    path: record.path,
  }));
}

function statusOf(letter: string): GitChangeStatus {
  switch (letter) {
    case 'A':
    case 'C':
      return 'ADDED';
    case 'D':
      return 'DELETED';
    case 'R':
      return 'MOVED';
    default:
      return 'UPDATED';
  }
}
