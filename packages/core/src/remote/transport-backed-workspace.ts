import type {
  ActionWire,
  CommandResult,
  FileOperationResult,
  GitChange,
  GitCommitsPage,
  GitDiff,
  ObservationWire,
  RuntimePluginStatusWire,
} from '@agent-workspace/protocol';
import {
  BaseWorkspace,
  type CapabilityHookOptions,
  type CommandRequest,
} from '../workspace/base-workspace.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import type { GitChangesOptions } from '../workspace/git-changes-options.js';
import {
  checkGitHistoryOptions,
  type GitCommitsOptions,
  type GitDiffOptions,
} from './git-history-options.js';
import type { RemoteTransport } from './remote-transport.js';
import {
  checkWorkspaceArchiveOptions,
  resolveArchiveDestination,
  type WorkspaceArchiveOptions,
  type WorkspaceArchiveResult,
} from './workspace-archive-options.js';

/**
 * The operations of a `RemoteWorkspace` that check their arguments and hand them to its
 * transport: commands, files, directories, git history, workspace archives and runtime actions.
 */
export abstract class TransportBackedWorkspace extends BaseWorkspace {
  /** The transport that carries the operations, loaded and created on first use. */
  protected abstract connectTransport(): Promise<RemoteTransport>;

  protected async runCommand(request: CommandRequest): Promise<CommandResult> {
    return (await this.connectTransport()).runCommand(request);
  }

  protected async runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return (await this.connectTransport()).fileUpload(sourcePath, destinationPath);
  }

  protected async runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return (await this.connectTransport()).fileDownload(sourcePath, destinationPath);
  }

  /**
   * A file now and at the base (see `Workspace.gitDiff`), against `options.ref` when given; with
   * `options.commit`, the file as that commit changed it (OpenHands' `git/diff?commit=`).
   */
  override async gitDiff(filePath: string, options: GitDiffOptions = {}): Promise<GitDiff> {
    if (options.ref === undefined && options.commit === undefined) return super.gitDiff(filePath);
    this.assertOpen();
    checkGitHistoryOptions(options);
    const { ref, commit } = options;
    return (await this.connectTransport()).git.diff(this.resolvePath(filePath, 'path'), {
      ref,
      commit,
    });
  }

  /**
   * OpenHands' `POST` of `FILE_BROWSER_ROUTES.createDirectory`: makes the directory `path` (relative to
   * `workingDir`) and its missing parents on the server; an existing directory is fine.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` (a file in the way), `FORBIDDEN` (permission,
   * the server's confinement), `NOT_SUPPORTED` (a server without the route).
   */
  async createDirectory(path: string): Promise<void> {
    this.assertOpen();
    return (await this.connectTransport()).createDirectory(this.resolvePath(path, 'path'));
  }

  /** OpenHands' `GET` of `AGENT_SERVER_ROUTES.gitCommits`: the repository's most recent commits, newest first. */
  async gitCommits(
    repositoryPath: string,
    options: GitCommitsOptions = {},
  ): Promise<GitCommitsPage> {
    this.assertOpen();
    checkGitHistoryOptions(options);
    const target = this.resolvePath(repositoryPath, 'path');
    return (await this.connectTransport()).git.commits(target, options.limit);
  }

  /**
   * OpenHands' `GET` of `gitCommitChangesPath(sha)`: the paths commit `sha` (hex only) changed
   * against its first parent. An unknown commit is `GIT_ERROR`.
   */
  async gitCommitChanges(repositoryPath: string, sha: string): Promise<GitChange[]> {
    this.assertOpen();
    checkGitHistoryOptions({ sha });
    const target = this.resolvePath(repositoryPath, 'path');
    return (await this.connectTransport()).git.commitChanges(target, sha);
  }

  /**
   * OpenHands' workspace archive (`GET` of `AGENT_SERVER_ROUTES.fileArchive`) of a server directory, written to a
   * local file: `format: 'git-delta'` (default) a git patch of the working tree against
   * `baseRef` (`baseCommit` tells the commit it applies to), `'tar.gz'` the whole directory with
   * a manifest; default excludes unless `useDefaultExcludes: false`, plus `exclude`. File
   * problems are results, as for `fileDownload`.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming the option over its limit.
   */
  async archive(
    sourcePath: string,
    destinationPath: string,
    options: WorkspaceArchiveOptions = {},
  ): Promise<WorkspaceArchiveResult> {
    this.assertOpen();
    checkWorkspaceArchiveOptions(options);
    const source = this.resolvePath(sourcePath, 'sourcePath');
    const destination = resolveArchiveDestination(destinationPath);
    return (await this.connectTransport()).workspaceArchive(source, destination, options);
  }

  protected async runGitChanges(
    repositoryPath: string,
    options: GitChangesOptions,
  ): Promise<GitChange[]> {
    checkGitHistoryOptions({ ref: options.ref });
    return (await this.connectTransport()).git.changes(repositoryPath, options);
  }

  protected async runGitDiff(filePath: string): Promise<GitDiff> {
    return (await this.connectTransport()).git.diff(filePath);
  }

  /**
   * `POST /execute_action`: `INVALID_ARGUMENT` carrying the server's reason (and
   * `details.field`) for bad arguments; `NOT_SUPPORTED` when the server has no such route (see
   * `executeRemoteAction`).
   */
  protected override async runAction(
    action: ActionWire,
    options: CapabilityHookOptions,
  ): Promise<ObservationWire> {
    return (await this.connectTransport()).executeAction(action, options.signal);
  }

  /** `/server_info` `plugins` (`[]` for an OpenHands server). */
  protected override async runRuntimePlugins(
    options: CapabilityHookOptions,
  ): Promise<RuntimePluginStatusWire[]> {
    return (await (await this.connectTransport()).serverInfo(options.signal)).plugins;
  }

  protected override async runUploadDirectory(
    sourcePath: string,
    destinationPath: string,
    options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    return (await this.connectTransport()).directoryUpload(
      sourcePath,
      destinationPath,
      options.signal,
    );
  }

  protected override async runDownloadDirectory(
    sourcePath: string,
    destinationPath: string,
    options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    return (await this.connectTransport()).directoryDownload(
      sourcePath,
      destinationPath,
      options.signal,
    );
  }
}
