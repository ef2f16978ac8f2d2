import { WorkspaceError } from '@agent-workspace/core';

/** What `EgressAllowList.parse` refused: the entry (its index), when one, and why. */
export interface AllowListProblem {
  /** Index of the bad entry; `undefined` when the list as a whole is wrong (too long). */
  index: number | undefined;
  /** The reason, without the field name the parse put first. */
  reason: string;
}

/**
 * The problem of an `EgressAllowList.parse(list, field)` failure, for an error of this server's
 * own shape (a 422 issue, a config issue) naming the entry by its index.
 * @throws the error itself when it is not a `WorkspaceError`.
 */
export function allowListProblem(error: unknown, field: string): AllowListProblem {
  if (!WorkspaceError.isInstance(error)) throw error;
  const index = /\[(\d+)\]$/.exec(String(error.details.field ?? ''))?.[1];
  const prefix = `${field}${index === undefined ? '' : `[${index}]`} `;
  const reason = error.message.startsWith(prefix)
    ? error.message.slice(prefix.length)
    : error.message;
  return { index: index === undefined ? undefined : Number(index), reason };
}
