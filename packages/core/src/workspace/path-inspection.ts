/** What {@link PathInspection.inspectPath} found at a path. */
export type WorkspacePathInfo =
  | { kind: 'missing' | 'directory' | 'other' }
  | {
      kind: 'file';
      /** Size in bytes. */
      size: number;
      /** Permission bits, e.g. `0o755`; `undefined` when they could not be read. */
      mode: number | undefined;
      /** The path with symbolic links resolved: where a write must go to keep the link. */
      realPath: string;
    };

/** One entry of {@link PathInspection.listDirectory}. */
export interface WorkspaceDirectoryEntry {
  /** Absolute path: the listed directory as given, then the names below it. */
  path: string;
  /** Directories only (a symbolic link to a directory is not followed). */
  isDirectory: boolean;
  /** Name starts with a dot; its contents are not listed. */
  hidden: boolean;
}

/** Options of {@link PathInspection}'s methods. */
export interface PathInspectionOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Questions about paths that a workspace answers itself, under its own path rules, instead of
 * through commands: an agent-server's own workspace answers them through its race-free path
 * walker, so a confined server's file tools see nothing outside its working directory even
 * when its commands are not sandboxed. Paths are absolute. A capability, found with
 * {@link pathInspectionOf}, never by class; tools fall back to small commands without it.
 */
export interface PathInspection {
  /**
   * What is at `path`.
   * @throws WorkspaceError `FORBIDDEN` for a path the workspace refuses (outside its confinement).
   */
  inspectPath(path: string, options?: PathInspectionOptions): Promise<WorkspacePathInfo>;
  /**
   * Entries up to two levels below the directory `path`; hidden ones are listed, not entered.
   * @throws WorkspaceError `NOT_FOUND`, `INVALID_ARGUMENT` (not a directory), `FORBIDDEN`.
   */
  listDirectory(path: string, options?: PathInspectionOptions): Promise<WorkspaceDirectoryEntry[]>;
  /**
   * Removes the file (or symbolic link) at `path`; nothing when it is already gone.
   * @throws WorkspaceError `INVALID_ARGUMENT` for a directory, `FORBIDDEN`.
   */
  removeFile(path: string, options?: PathInspectionOptions): Promise<void>;
}

/** `candidate` as a {@link PathInspection} when it has its three methods, else `undefined`. */
export function pathInspectionOf(candidate: unknown): PathInspection | undefined {
  const inspection = candidate as Partial<PathInspection> | null | undefined;
  return typeof inspection?.inspectPath === 'function' &&
    typeof inspection.listDirectory === 'function' &&
    typeof inspection.removeFile === 'function'
    ? (inspection as PathInspection)
    : undefined;
}
