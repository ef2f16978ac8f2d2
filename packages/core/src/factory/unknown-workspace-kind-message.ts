/**
 * Kinds that a package of this repository registers when it is imported, with that package.
 * Only kinds that exist are listed; add a row with each new workspace package.
 */
export const WORKSPACE_KIND_PACKAGES: ReadonlyMap<string, string> = new Map([
  ['docker', '@agent-workspace/docker'],
]);

/** Options of {@link unknownWorkspaceKindMessage}. */
export interface UnknownWorkspaceKindMessageOptions {
  /** The kind nobody registered. */
  kind: string;
  /** The kinds registered now. */
  registered: readonly string[];
}

/**
 * The message of an `UNKNOWN_WORKSPACE_KIND` error: names the package to import when one of
 * ours registers `kind`, otherwise reminds that `registerWorkspaceType()` must come first.
 */
export function unknownWorkspaceKindMessage({
  kind,
  registered,
}: UnknownWorkspaceKindMessageOptions): string {
  const known = `registered kinds: ${registered.join(', ')}`;
  const unregistered = `no workspace type of kind "${kind}" is registered`;
  const owner = WORKSPACE_KIND_PACKAGES.get(kind);
  if (owner !== undefined) {
    return `${unregistered}; "${kind}" is registered by ${owner}: import '${owner}' first (${known})`;
  }
  return `${unregistered} (${known}); register a custom type with registerWorkspaceType() before createWorkspace()`;
}
