/** A workspace kind that a package of this project registers when it is imported. */
export interface ShippedWorkspaceKind {
  /** The `kind` of its configs. */
  kind: string;
  /** The package whose import registers it. */
  packageName: string;
  /** The function that package exports to register it again (it does nothing the second time). */
  register: string;
}

/**
 * The kinds this project ships outside core (core registers `local` and `remote` itself). Add a
 * row with each new workspace package; `scripts/workspace-kinds.test.mjs` checks the rows
 * against the `registerWorkspaceType` calls of the packages.
 */
export const SHIPPED_WORKSPACE_KINDS: readonly ShippedWorkspaceKind[] = [
  {
    kind: 'docker',
    packageName: '@agent-workspace/docker',
    register: 'registerDockerWorkspaceType',
  },
  {
    kind: 'remote-api',
    packageName: '@agent-workspace/remote-api',
    register: 'registerRemoteApiWorkspaceType',
  },
  {
    kind: 'worktree',
    packageName: '@agent-workspace/git-workspaces',
    register: 'registerGitWorkspaceTypes',
  },
  {
    kind: 'clone',
    packageName: '@agent-workspace/git-workspaces',
    register: 'registerGitWorkspaceTypes',
  },
];

/** Options of {@link unknownWorkspaceKindMessage}. */
export interface UnknownWorkspaceKindMessageOptions {
  /** The kind nobody registered. */
  kind: string;
  /** The kinds registered now. */
  registered: readonly string[];
}

/**
 * The message of an `UNKNOWN_WORKSPACE_KIND` error: names the package to import when one of
 * ours registers `kind`, otherwise lists the kinds the project ships with their packages and
 * reminds that `registerWorkspaceType()` must come first for a custom kind.
 */
export function unknownWorkspaceKindMessage({
  kind,
  registered,
}: UnknownWorkspaceKindMessageOptions): string {
  const known = `registered kinds: ${registered.join(', ')}`;
  const unregistered = `no workspace type of kind "${kind}" is registered`;
  const shipped = SHIPPED_WORKSPACE_KINDS.find((row) => row.kind === kind);
  if (shipped !== undefined) {
    const { packageName, register } = shipped;
    return `${unregistered}; "${kind}" is registered by ${packageName}: import '${packageName}' first (or call its ${register}()) (${known})`;
  }
  const others = SHIPPED_WORKSPACE_KINDS.filter((row) => !registered.includes(row.kind))
    .map((row) => `"${row.kind}" (import '${row.packageName}')`)
    .join(', ');
  const ours = others.length > 0 ? `; kinds this project ships: ${others}` : '';
  return `${unregistered} (${known})${ours}; register a custom type with registerWorkspaceType() before createWorkspace()`;
}
