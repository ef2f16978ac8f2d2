/**
 * What a workspace can do beyond the core contract, declared by the workspace itself. Every
 * `BaseWorkspace` has the methods of `directoryTransfer` and `runtimeActions`; the ones it does
 * not declare reject with `NOT_SUPPORTED`. Callers decide by this, never by looking for methods
 * or class names.
 */
export interface WorkspaceCapabilities {
  /**
   * `uploadDirectory` / `downloadDirectory` copy whole directories (`DirectoryTransfer`):
   * local, remote and provisioned workspaces.
   */
  readonly directoryTransfer: boolean;
  /**
   * `executeAction`, `runtimePlugins`, `browse`, `browseInteractive` and `runIpython` reach
   * runtime plugins (`ActionExecutor`): an agent-server's, so remote and provisioned
   * workspaces.
   */
  readonly runtimeActions: boolean;
  /**
   * `gitCommits` / `gitCommitChanges` read a repository's commit history (`GitHistory`, found
   * with `gitHistoryOf`): local, remote and sandbox workspaces. Unlike the two above, only a type
   * that declares it has these methods; absent means `false`.
   */
  readonly gitHistory?: boolean;
  /**
   * `watch` reports changes under a directory (`FileWatch`, found with `fileWatchOf`): local
   * workspaces, and remote ones whose agent-server announces `FILE_WATCH_CAPABILITY`. Like
   * `gitHistory`, only a type that declares it has the method; absent means `false`.
   */
  readonly fileWatch?: boolean;
  /**
   * `metrics` samples what the sandbox uses (`ResourceMetrics`, found with `resourceMetricsOf`):
   * remote and sandbox workspaces, through their agent-server. Absent means `false`.
   */
  readonly resourceMetrics?: boolean;
  /**
   * `exposePort` reaches a port inside the sandbox from here (`PortExposure`, found with
   * `portExposureOf`): remote and sandbox workspaces, through their agent-server's port proxy.
   * Absent means `false`.
   */
  readonly portExposure?: boolean;
  /**
   * `fork` copies the workspace into a new, independent one with its files and git state, not
   * its processes (`WorkspaceFork`, found with `workspaceForkOf`): local workspaces (a
   * copy-on-write copy of the directory where the file system can) and Docker workspaces (a
   * snapshot image). Absent means `false`.
   */
  readonly fork?: boolean;
}

/** Capabilities of a workspace that declares none: only the core contract. */
export const NO_WORKSPACE_CAPABILITIES: WorkspaceCapabilities = Object.freeze({
  directoryTransfer: false,
  runtimeActions: false,
});
