import type {
  ActionWire,
  CommandResult,
  FileOperationResult,
  GitChange,
  GitCommitsPage,
  GitDiff,
  ObservationWire,
  RuntimePluginStatusWire,
  ServerInfo,
  WorkspaceMetrics,
} from '@agent-workspace/protocol';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { GitCommitsOptions } from '../remote/git-history-options.js';
import type {
  DeferredInitState,
  InitializeWorkspaceOptions,
  InitStateOptions,
} from '../remote/remote-init-options.js';
import { AGENT_SERVER_CAPABILITIES } from '../remote/remote-workspace-options.js';
import type {
  AgentServerEndpoint,
  AgentServerEndpointOptions,
} from '../workspace/agent-server-endpoint.js';
import {
  BaseWorkspace,
  type CapabilityHookOptions,
  type CommandRequest,
} from '../workspace/base-workspace.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import type { FileWatcher, FileWatchOptions } from '../workspace/file-watch.js';
import type { GitChangesOptions } from '../workspace/git-changes-options.js';
import type { ExposedPort, ExposePortOptions } from '../workspace/port-exposure.js';
import type { ResourceMetricsOptions } from '../workspace/resource-metrics.js';
import type { WorkspaceCapabilities } from '../workspace/workspace-capabilities.js';
import type {
  DescribedWorkspaceIdentity,
  WorkspaceIdentityOptions,
} from '../workspace/workspace-identity.js';
import type { SandboxEndpoint } from './sandbox-endpoint.js';
import type {
  ReleaseSandboxOptions,
  SandboxHookOptions,
  SandboxLogsOptions,
} from './sandbox-hooks.js';
import { SandboxLifecycle } from './sandbox-lifecycle.js';
import type { SandboxState } from './sandbox-state.js';
import {
  resolveSandboxWorkspaceOptions,
  type SandboxWorkspaceOptions,
} from './sandbox-workspace-options.js';
import type { SandboxWorkspaceStatus } from './sandbox-workspace-status.js';
import type { StartSandboxWorkspaceOptions } from './start-or-close.js';

export type { SandboxWorkspaceStatus } from './sandbox-workspace-status.js';

/**
 * The lifecycle every provisioned workspace shares (Docker, Runtime API, cloud providers): a
 * sandbox running an agent-server, used through an inner `RemoteWorkspace`.
 *
 * - `start()`: `createSandbox()` → `startSandbox()` (gives host and key) → poll `/health` until
 *   it answers, all within `startupTimeoutMs`. A sandbox that dies or never answers gives a
 *   `PROVISIONING_ERROR` carrying its state and last log lines, and whatever was created is
 *   released. Operations called before `start()` start the workspace first.
 * - `close()` releases exactly what `start()` made, once, within about `lifecycleTimeoutMs`;
 *   it is safe during `start()`, after a failed start and after the sandbox crashed.
 * - `pause()` / `resume()` call the sandbox hooks; `resume()` waits until alive again. While
 *   paused every operation rejects at once with `WORKSPACE_PAUSED`.
 * - Whole directories (the `directoryTransfer` capability: `uploadDirectory`,
 *   `downloadDirectory`) and runtime plugin actions (the `runtimeActions` capability:
 *   `executeAction`, `browse`, `browseInteractive`, `runIpython`, `runtimePlugins`) go through
 *   the sandbox's agent-server as `RemoteWorkspace` sends them, starting the sandbox first.
 * - A sandbox whose agent-server starts dormant (deferred init) is alive once `/health` answers;
 *   `initialize()` delivers its claim-time configuration (see `RemoteWorkspace.initialize`).
 * - A `CONNECTION_ERROR` during use is checked against the sandbox: when it has exited or
 *   vanished, that and every later operation reject with `SANDBOX_EXITED` (exit code and last
 *   logs in `details`).
 *
 * Subclasses implement the protected hooks; the template owns ordering, timeouts and errors.
 */
export abstract class SandboxWorkspace extends BaseWorkspace {
  readonly #lifecycle: SandboxLifecycle;

  constructor(options: SandboxWorkspaceOptions) {
    super({ workingDir: options.workingDir });
    const { logTailLines, ...lifecycleOptions } = resolveSandboxWorkspaceOptions(options);
    // Hooks are looked up per call: subclass fields (such as `kind`) are set after this runs.
    this.#lifecycle = new SandboxLifecycle(
      {
        kind: () => this.kind,
        logTailLines,
        workingDir: this.workingDir,
        closed: () => this.closed,
        assertOpen: () => this.assertOpen(),
        createSandbox: (hookOptions) => this.createSandbox(hookOptions),
        startSandbox: (hookOptions) => this.startSandbox(hookOptions),
        sandboxState: (hookOptions) => this.sandboxState(hookOptions),
        sandboxLogs: (hookOptions) => this.sandboxLogs(hookOptions),
        releaseSandbox: (hookOptions) => this.releaseSandbox(hookOptions),
        pauseSandbox: (hookOptions) => this.pauseSandbox(hookOptions),
        resumeSandbox: (hookOptions) => this.resumeSandbox(hookOptions),
      },
      lifecycleOptions,
    );
  }

  /** Where the workspace is in its lifecycle. */
  get status(): SandboxWorkspaceStatus {
    return this.#lifecycle.status;
  }

  /** Base URL of the sandbox's agent-server, once started. */
  get host(): string | undefined {
    return this.#lifecycle.host;
  }

  /**
   * Creates and starts the sandbox and waits until its agent-server answers. Repeated calls
   * share the first call's outcome (and signal). On failure everything created is released and
   * the workspace stays unusable: `PROVISIONING_ERROR` (with state and logs), `ABORTED`,
   * `WORKSPACE_CLOSED`, or a hook's own `WorkspaceError` (e.g. `CONNECTION_ERROR`).
   */
  async start(options: StartSandboxWorkspaceOptions = {}): Promise<void> {
    this.assertOpen();
    return this.#lifecycle.start(options.signal);
  }

  /**
   * True when started, not paused, the sandbox is not gone (its state is read beside the probe)
   * and the agent-server answers `/health`; never throws for that.
   */
  async alive(): Promise<boolean> {
    this.assertOpen();
    return this.#lifecycle.alive();
  }

  /**
   * The sandbox's agent-server (host and session key), starting the sandbox first if needed.
   * The key is a non-enumerable property of the result.
   */
  async agentServerEndpoint(
    options: AgentServerEndpointOptions = {},
  ): Promise<AgentServerEndpoint> {
    this.assertOpen();
    return this.#lifecycle.use((remote) => remote.agentServerEndpoint(), options.signal);
  }

  /**
   * The deferred-init state of the sandbox's agent-server (see `RemoteWorkspace.initState`):
   * `dormant` until {@link initialize}, then `ready`; `undefined` when it was started without.
   */
  async initState(options: InitStateOptions = {}): Promise<DeferredInitState | undefined> {
    this.assertOpen();
    return this.#lifecycle.use((remote) => remote.initState(options), options.signal);
  }

  /**
   * Initializes the sandbox's dormant agent-server (see `RemoteWorkspace.initialize`), starting
   * the sandbox first if needed. With `sessionApiKeys`, the workspace uses the first from then
   * on, across pause and resume too. A server initializes once (`ALREADY_EXISTS` after).
   */
  async initialize(options: InitializeWorkspaceOptions = {}): Promise<void> {
    this.assertOpen();
    return this.#lifecycle.initialize(options);
  }

  /** Fetches the agent-server's `GET /server_info`. */
  async serverInfo(): Promise<ServerInfo> {
    this.assertOpen();
    return this.#lifecycle.use((remote) => remote.serverInfo());
  }

  /**
   * What the sandbox uses now (`ResourceMetrics`), as its agent-server reads it from the
   * sandbox's cgroup, starting the sandbox first if needed.
   */
  async metrics(options: ResourceMetricsOptions = {}): Promise<WorkspaceMetrics> {
    this.assertOpen();
    return this.#lifecycle.use((remote) => remote.metrics(options), options.signal);
  }

  /**
   * Reaches `port` inside the sandbox from here (`PortExposure`), through its agent-server's
   * port proxy, starting the sandbox first if needed; closed with the workspace.
   */
  async exposePort(port: number, options: ExposePortOptions = {}): Promise<ExposedPort> {
    this.assertOpen();
    return this.#lifecycle.use((remote) => remote.exposePort(port, options), options.signal);
  }

  /**
   * Whole directories, runtime plugin actions and commit history through the sandbox's
   * agent-server; once it has started, also what that server announced (`fileWatch`,
   * `resourceMetrics`, `portExposure`).
   */
  override get capabilities(): WorkspaceCapabilities {
    return this.#lifecycle.remoteCapabilities ?? AGENT_SERVER_CAPABILITIES;
  }

  /**
   * Watches a directory of the sandbox (`FileWatch`) through its agent-server, starting the
   * sandbox first if needed; the watch ends with the workspace.
   */
  async watch(path: string, options: FileWatchOptions = {}): Promise<FileWatcher> {
    this.assertOpen();
    return this.#lifecycle.use((remote) => remote.watch(path, options), options.signal);
  }

  /**
   * The identity the sandbox's agent-server reports (see `RemoteWorkspace`), starting the
   * sandbox first if needed; subclasses refine it (a container's `projectionKind`, ...).
   */
  protected override async describeIdentity(
    options: WorkspaceIdentityOptions = {},
  ): Promise<DescribedWorkspaceIdentity> {
    const { accessMode: _accessMode, ...identity } = await this.#lifecycle.use(
      (remote) => remote.identity(options),
      options.signal,
    );
    return identity;
  }

  /** Creates the sandbox (container, VM, ...) without starting it. */
  protected abstract createSandbox(options: SandboxHookOptions): Promise<void>;
  /** Starts the created sandbox and its agent-server; returns how to reach it. */
  protected abstract startSandbox(options: SandboxHookOptions): Promise<SandboxEndpoint>;
  /** Reports the sandbox's state; `missing` when it is gone. */
  protected abstract sandboxState(options: SandboxHookOptions): Promise<SandboxState>;
  /** Returns the sandbox's last log lines (agent-server output), `''` when there are none. */
  protected abstract sandboxLogs(options: SandboxLogsOptions): Promise<string>;
  /**
   * Releases what `createSandbox()` made, tolerating partial creation and a sandbox that is
   * already gone. Called only if `createSandbox()` was, and again only after it failed.
   */
  protected abstract releaseSandbox(options: ReleaseSandboxOptions): Promise<void>;

  /** Suspends the sandbox; the default rejects with `NOT_SUPPORTED`. */
  protected async pauseSandbox(_options: SandboxHookOptions): Promise<void> {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: `${this.kind} workspaces cannot be paused`,
    });
  }

  /**
   * Resumes the suspended sandbox; the default rejects with `NOT_SUPPORTED`. A sandbox that comes
   * back at another address (a rescheduled pod or service task) returns its new endpoint.
   */
  protected async resumeSandbox(
    _options: SandboxHookOptions,
    // biome-ignore lint/suspicious/noConfusingVoidType: a hook whose address never changes returns nothing
  ): Promise<SandboxEndpoint | undefined | void> {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: `${this.kind} workspaces cannot be resumed`,
    });
  }

  protected runCommand(request: CommandRequest): Promise<CommandResult> {
    const { command, signal, ...options } = request;
    return this.#lifecycle.use(
      (remote) => remote.executeCommand(command, { ...options, signal }),
      signal,
    );
  }

  protected runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return this.#lifecycle.use((remote) => remote.fileUpload(sourcePath, destinationPath));
  }

  protected runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return this.#lifecycle.use((remote) => remote.fileDownload(sourcePath, destinationPath));
  }

  protected runGitChanges(
    repositoryPath: string,
    options: GitChangesOptions,
  ): Promise<GitChange[]> {
    return this.#lifecycle.use((remote) => remote.gitChanges(repositoryPath, options));
  }

  protected runGitDiff(filePath: string): Promise<GitDiff> {
    return this.#lifecycle.use((remote) => remote.gitDiff(filePath));
  }

  /** The commits of the repository at `repositoryPath`, newest first (see `RemoteWorkspace`). */
  gitCommits(repositoryPath: string, options: GitCommitsOptions = {}): Promise<GitCommitsPage> {
    this.assertOpen();
    return this.#lifecycle.use((remote) => remote.gitCommits(repositoryPath, options));
  }

  /** The files one commit changed against its first parent (see `RemoteWorkspace`). */
  gitCommitChanges(repositoryPath: string, sha: string): Promise<GitChange[]> {
    this.assertOpen();
    return this.#lifecycle.use((remote) => remote.gitCommitChanges(repositoryPath, sha));
  }

  protected override runUploadDirectory(
    sourcePath: string,
    destinationPath: string,
    options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    return this.#lifecycle.use(
      (remote) => remote.uploadDirectory(sourcePath, destinationPath, options),
      options.signal,
    );
  }

  protected override runDownloadDirectory(
    sourcePath: string,
    destinationPath: string,
    options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    return this.#lifecycle.use(
      (remote) => remote.downloadDirectory(sourcePath, destinationPath, options),
      options.signal,
    );
  }

  protected override runAction(
    action: ActionWire,
    options: CapabilityHookOptions,
  ): Promise<ObservationWire> {
    return this.#lifecycle.use((remote) => remote.executeAction(action, options), options.signal);
  }

  protected override runRuntimePlugins(
    options: CapabilityHookOptions,
  ): Promise<RuntimePluginStatusWire[]> {
    return this.#lifecycle.use((remote) => remote.runtimePlugins(options), options.signal);
  }

  protected override runPause(): Promise<void> {
    return this.#lifecycle.pause();
  }

  protected override runResume(): Promise<void> {
    return this.#lifecycle.resume();
  }

  protected runClose(): Promise<void> {
    return this.#lifecycle.close();
  }
}
