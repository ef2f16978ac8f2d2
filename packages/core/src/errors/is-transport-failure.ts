import { WorkspaceError } from './workspace-error.js';

/** The codes of a failure to talk to a server, as opposed to an answer it gave. */
const TRANSPORT_FAILURES = [
  'CONNECTION_ERROR',
  'AUTHENTICATION_ERROR',
  'SERVER_ERROR',
  'PROTOCOL_ERROR',
] as const;

/**
 * True for a `WorkspaceError` of a transport failure: the server could not be reached, refused
 * the key, failed, or answered something unexpected (see `WorkspaceErrorCode`).
 */
export function isTransportFailure(error: unknown): boolean {
  return TRANSPORT_FAILURES.some((code) => WorkspaceError.isInstance(error, code));
}
