import { WorkspaceError } from '@agent-workspace/core';
import {
  type BashErrorCode,
  type ExecErrorCode,
  WORKSPACE_ERROR_WIRE,
  type WorkspaceErrorCode,
} from '@agent-workspace/protocol';

/** Why a command could not start, in the terms routes and sockets answer with. */
export interface StartFailure {
  /** HTTP status for the routes. */
  status: number;
  /** Code of the exec socket's `error` frame. */
  execCode: ExecErrorCode;
  /** Code of the bash-events socket's `BashError` event. */
  bashErrorCode: BashErrorCode;
  /** Request field at fault, if one is. */
  field: string | undefined;
  detail: string;
}

/** Spawn failures that pass: the machine is out of descriptors, processes or memory for now. */
const TRANSIENT_SPAWN_ERRORS = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM']);

/** The codes `BashEventService.startCommand` fails with; anything else is unexpected. */
const START_ERROR_CODES = new Set<WorkspaceErrorCode>([
  'FORBIDDEN',
  'INVALID_CWD',
  'NOT_FOUND',
  'INVALID_ARGUMENT',
  'RESOURCE_EXHAUSTED',
  'SPAWN_ERROR',
  'WORKSPACE_CLOSED',
]);

/**
 * Classifies an error thrown by `BashEventService.startCommand` with the one wire table
 * (`WORKSPACE_ERROR_WIRE`); `undefined` for anything unexpected. A start names one path, its
 * cwd: a missing one is `INVALID_CWD` (400). A spawn that failed for lack of descriptors,
 * processes or memory is a 503 to retry later.
 */
export function describeStartError(error: unknown): StartFailure | undefined {
  if (!WorkspaceError.isInstance(error) || !START_ERROR_CODES.has(error.code)) return undefined;
  const named = typeof error.details.field === 'string' ? error.details.field : undefined;
  const aboutCwd =
    error.code === 'INVALID_CWD' ||
    error.code === 'NOT_FOUND' ||
    (error.code === 'INVALID_ARGUMENT' && named === 'cwd');
  const code = aboutCwd ? 'INVALID_CWD' : error.code;
  const field = aboutCwd ? 'cwd' : named;
  const wire = WORKSPACE_ERROR_WIRE[code];
  const transient =
    code === 'SPAWN_ERROR' && TRANSIENT_SPAWN_ERRORS.has(String(error.details.errno));
  return {
    status: transient ? 503 : wire.status,
    execCode: wire.execCode,
    bashErrorCode: wire.bashErrorCode,
    field,
    detail: transient ? `${error.message}; retry later` : error.message,
  };
}
