import { WorkspaceError } from '../errors/workspace-error.js';
import type { WorkspaceCapabilities } from './workspace-capabilities.js';

/** Options of the `run*` hooks of `BaseWorkspace`'s capabilities. */
export interface CapabilityHookOptions {
  signal?: AbortSignal | undefined;
}

/** The `NOT_SUPPORTED` error of a default capability hook: a `kind` workspace cannot `what`. */
export function unsupportedCapability(
  kind: string,
  capability: keyof WorkspaceCapabilities,
  what: string,
): WorkspaceError {
  return new WorkspaceError({
    code: 'NOT_SUPPORTED',
    message: `${kind} workspaces cannot ${what} (no ${capability} capability)`,
    details: { capability },
  });
}
