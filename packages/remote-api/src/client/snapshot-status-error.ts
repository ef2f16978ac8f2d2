import { WorkspaceError, type WorkspaceErrorCode } from '@agent-workspace/core';

/** How the snapshot routes' statuses read beside the Runtime API's others. */
const SNAPSHOT_STATUS_CODES: Readonly<Record<number, WorkspaceErrorCode>> = {
  /** A snapshot in use by a session started from it (a stopped session, for `POST /snapshots`). */
  409: 'WORKSPACE_OCCUPIED',
  /** A backend without snapshots (Swarm), or a Runtime API without the routes (OpenHands). */
  501: 'NOT_SUPPORTED',
};

/**
 * `error` (the Runtime API client's reading of a snapshot route's refusal with `status`) as its
 * snapshot reading: 409 `WORKSPACE_OCCUPIED`, 501 `NOT_SUPPORTED`; others as they are.
 */
export function snapshotStatusError(error: WorkspaceError, status: number): WorkspaceError {
  const code = SNAPSHOT_STATUS_CODES[status];
  if (code === undefined) return error;
  return new WorkspaceError({ code, message: error.message, details: error.details, cause: error });
}
