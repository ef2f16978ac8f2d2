import type { Workspace } from './workspace.js';

/** Options of {@link DirectoryTransfer}'s methods. */
export interface DirectoryTransferOptions {
  /** Stops the transfer: the file being written is discarded and the call rejects `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/**
 * The outcome of `uploadDirectory` / `downloadDirectory`. As with `fileUpload`, problems with
 * the files (a missing source, a refused entry, a destination in the way) are `success: false`
 * with an `error`; transport and auth failures throw `WorkspaceError`s. Entries written before a
 * failure stay; every file is complete or absent, never half-written.
 */
export interface DirectoryTransferResult {
  success: boolean;
  /** The source directory, resolved. */
  sourcePath: string;
  /** The destination directory, resolved. */
  destinationPath: string;
  /** Regular files written (0 on failure when unknown). */
  files: number;
  /** Bytes of file content written. */
  bytes: number;
  /** Why the transfer failed; absent on success. */
  error?: string | undefined;
}

/** A failed transfer between `paths` that wrote nothing it can count. */
export function directoryTransferFailure(
  paths: Pick<DirectoryTransferResult, 'sourcePath' | 'destinationPath'>,
  error: string,
): DirectoryTransferResult {
  const { sourcePath, destinationPath } = paths;
  return { success: false, sourcePath, destinationPath, files: 0, bytes: 0, error };
}

/**
 * Something that copies whole directories into and out of a workspace: `RemoteWorkspace` (one
 * tar stream each way where the agent-server offers it), the provisioned workspaces over it, and
 * `LocalWorkspace` (a local copy). Directories, regular files with their permission bits (set-id
 * bits dropped) and symbolic links (as links, never followed) are copied; FIFOs, sockets and
 * devices are left out; existing files at the destination are replaced, others kept. Relative
 * workspace paths resolve against `workingDir`, caller paths against the process's cwd. A
 * capability a workspace declares (`capabilities.directoryTransfer`, found with
 * {@link directoryTransferOf}), never found by its methods or class.
 */
export interface DirectoryTransfer {
  /** Copies the caller's directory `sourceDir` into the workspace's `destinationDir`. */
  uploadDirectory(
    sourceDir: string,
    destinationDir: string,
    options?: DirectoryTransferOptions,
  ): Promise<DirectoryTransferResult>;
  /** Copies the workspace's directory `sourceDir` into the caller's `destinationDir`. */
  downloadDirectory(
    sourceDir: string,
    destinationDir: string,
    options?: DirectoryTransferOptions,
  ): Promise<DirectoryTransferResult>;
}

/**
 * `candidate` as a {@link DirectoryTransfer} when it is a workspace that declares the
 * `directoryTransfer` capability (see `WorkspaceCapabilities`), else `undefined`.
 */
export function directoryTransferOf(candidate: unknown): DirectoryTransfer | undefined {
  const workspace = candidate as Workspace | null | undefined;
  return workspace?.capabilities?.directoryTransfer === true
    ? (workspace as Workspace & DirectoryTransfer)
    : undefined;
}
