import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import type { SessionSpec, WarmSandboxSpec } from './runtime-backend.js';
import { RUNTIME_LABELS } from './session-labels.js';

/** `NOT_FOUND` for a runtime id no session of `namespace` has. */
export function sessionNotFound(runtimeId: string, namespace: string): WorkspaceError {
  return new WorkspaceError({
    code: 'NOT_FOUND',
    message: `no session has runtime id ${runtimeId} in namespace ${namespace}`,
    details: { runtimeId, namespace },
  });
}

/** `ALREADY_EXISTS` for a session id in use (the engine refused the object name). */
export function sessionExists(
  sessionId: string,
  namespace: string,
  cause: unknown,
): WorkspaceError {
  return new WorkspaceError({
    code: 'ALREADY_EXISTS',
    message: `session ${sessionId} already exists in namespace ${namespace}`,
    cause,
    details: { sessionId, namespace },
  });
}

/**
 * Checks what a backend relies on to find a session again: its labels name this namespace, its
 * session id (none on a warm sandbox's spec) and runtime id, and the key hash is a SHA-256
 * digest. `INVALID_ARGUMENT` names the field.
 */
export function validateSessionSpec(spec: SessionSpec | WarmSandboxSpec, namespace: string): void {
  const expected = {
    [RUNTIME_LABELS.namespace]: namespace,
    [RUNTIME_LABELS.sessionId]: 'sessionId' in spec ? spec.sessionId : undefined,
    [RUNTIME_LABELS.runtimeId]: spec.runtimeId,
    [RUNTIME_LABELS.pooled]: 'sessionId' in spec ? undefined : 'true',
  };
  for (const [key, value] of Object.entries(expected)) {
    if (spec.labels[key] !== value) {
      const wanted = value === undefined ? 'absent' : `'${value}'`;
      throw invalidArgument(`labels.${key}`, `must be ${wanted}, got '${spec.labels[key]}'`);
    }
  }
  if (!/^[0-9a-f]{64}$/i.test(spec.sessionKeyHash)) {
    throw invalidArgument('sessionKeyHash', 'must be a SHA-256 digest (64 hex digits)');
  }
}
