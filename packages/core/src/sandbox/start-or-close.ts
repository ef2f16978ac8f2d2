import type { SandboxWorkspace } from './sandbox-workspace.js';

/** Options of {@link SandboxWorkspace.start}. */
export interface StartSandboxWorkspaceOptions {
  /** Aborting releases what was created and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/**
 * Starts a new sandbox workspace for a `create()` factory: resolves with it once its agent-server
 * answers; on failure closes it (releasing whatever was made) and rethrows the start's error.
 *
 * @example
 * ```ts
 * static create(options: MyOptions, { signal }: { signal?: AbortSignal } = {}) {
 *   return startOrClose(new MySandboxWorkspace(options), { signal });
 * }
 * ```
 */
export async function startOrClose<T extends SandboxWorkspace>(
  workspace: T,
  options: StartSandboxWorkspaceOptions = {},
): Promise<T> {
  try {
    await workspace.start(options);
  } catch (error) {
    await workspace.close().catch(() => {});
    throw error;
  }
  return workspace;
}
