/*
 * The slice of `@composio/ao-core`'s plugin types (0.2.x) these plugins implement, restated
 * structurally so the package needs no ao-core at run time: ao-core checks plugins by shape.
 */

/** ao-core's `ProjectConfig`: the fields a workspace plugin reads (its other fields are ignored). */
export interface AoProjectConfig {
  /** The project's repository; `~` and `~/...` are expanded, a relative path is taken from the cwd. */
  path: string;
  /** Branch new trees start from. */
  defaultBranch: string;
  /** Paths relative to the project linked into each new tree when present there. */
  symlinks?: string[] | undefined;
  /** Shell commands run in each new tree by `postCreate`. */
  postCreate?: string[] | undefined;
}

/** ao-core's `WorkspaceCreateConfig`. */
export interface AoWorkspaceCreateConfig {
  projectId: string;
  project: AoProjectConfig;
  sessionId: string;
  branch: string;
}

/** ao-core's `WorkspaceInfo`. */
export interface AoWorkspaceInfo {
  path: string;
  branch: string;
  sessionId: string;
  projectId: string;
}

/** ao-core's `Workspace` plugin instance (slot `workspace`). */
export interface AoWorkspace {
  readonly name: string;
  create(config: AoWorkspaceCreateConfig): Promise<AoWorkspaceInfo>;
  destroy(workspacePath: string): Promise<void>;
  list(projectId: string): Promise<AoWorkspaceInfo[]>;
  postCreate(info: AoWorkspaceInfo, project: AoProjectConfig): Promise<void>;
  exists(workspacePath: string): Promise<boolean>;
  restore(config: AoWorkspaceCreateConfig, workspacePath: string): Promise<AoWorkspaceInfo>;
}

/** ao-core's `PluginManifest` of a workspace plugin. */
export interface AoPluginManifest {
  name: string;
  slot: 'workspace';
  description: string;
  version: string;
  displayName?: string;
}

/** ao-core's `PluginModule<Workspace>`: what `registry.register(module, config)` takes. */
export interface AoPluginModule {
  manifest: AoPluginManifest;
  create(config?: Record<string, unknown>): AoWorkspace;
}
