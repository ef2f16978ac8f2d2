import type { Workspace } from './workspace.js';

/** Options every {@link WorkspaceFork.fork} takes; a type may take more (overrides, a directory). */
export interface WorkspaceForkOptions {
  /** Aborting removes what the fork created so far and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/**
 * Copying a workspace into a new, independent one: `fork()` is a snapshot of its files and git
 * state (history, index, stash, uncommitted changes) and a new workspace started from it. The
 * running processes are not carried: the fork starts with none. From then on the two are
 * independent (a write in one is not seen by the other) and each is closed on its own; the caller
 * owns the fork and closes it. Local workspaces copy their directory (copy-on-write where the file
 * system can), Docker workspaces commit the container to an image; both declare the `fork`
 * capability (found with {@link workspaceForkOf}).
 *
 * `Options` and `Forked` let a type take its own options and answer its own class (a
 * `DockerWorkspace` forks into a `DockerWorkspace`, with overrides of its options).
 */
export interface WorkspaceFork<
  Options extends WorkspaceForkOptions = WorkspaceForkOptions,
  Forked extends Workspace = Workspace,
> {
  /**
   * A new workspace with a copy of this one's files and git state, not its processes.
   *
   * @throws WorkspaceError `NOT_SUPPORTED` when this workspace cannot be forked this way (the
   * message says what can); `WORKSPACE_CLOSED`; `ABORTED`; the type's own errors.
   */
  fork(options?: Options): Promise<Forked>;
}

/**
 * `candidate` as {@link WorkspaceFork} when it is a workspace that declares the `fork`
 * capability (see `WorkspaceCapabilities`), else `undefined`.
 */
export function workspaceForkOf(candidate: unknown): WorkspaceFork | undefined {
  const workspace = candidate as Workspace | null | undefined;
  return workspace?.capabilities?.fork === true
    ? (workspace as Workspace & WorkspaceFork)
    : undefined;
}
