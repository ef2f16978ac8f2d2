import type {
  ActionWire,
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
  ObservationWire,
  RuntimePluginStatusWire,
  ServerInfo,
} from '@agent-workspace/protocol';
import { abortedError } from '../errors/aborted-error.js';
import { positiveOption } from '../errors/positive-option.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../internal/output/default-max-output-bytes.js';
import {
  type AgentServerEndpoint,
  agentServerEndpoint,
} from '../workspace/agent-server-endpoint.js';
import {
  BaseWorkspace,
  type CapabilityHookOptions,
  type CommandRequest,
} from '../workspace/base-workspace.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import type { WorkspaceCapabilities } from '../workspace/workspace-capabilities.js';
import {
  type DescribedWorkspaceIdentity,
  type WorkspaceIdentityOptions,
  workspaceIdOf,
} from '../workspace/workspace-identity.js';
import { agentServerBaseUrl } from './agent-server-base-url.js';
import { CLIENT_TIMEOUT_GRACE_MS } from './client-timeout-grace.js';
import type { RemoteTransport, RemoteTransportOptions } from './remote-transport.js';

/** Re-exported: core's index and callers take it from here. */
export { CLIENT_TIMEOUT_GRACE_MS };

/** What every workspace over an agent-server supports beyond the core contract. */
export const AGENT_SERVER_CAPABILITIES: WorkspaceCapabilities = Object.freeze({
  directoryTransfer: true,
  runtimeActions: true,
});

/** Options of {@link RemoteWorkspace}. */
export interface RemoteWorkspaceOptions {
  /** Base URL of the agent-server, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  host: string;
  /** Absolute directory on the server that relative paths and the default cwd resolve against. */
  workingDir: string;
  /** Session API key: sent in the session key header and as the websocket's first frame. */
  apiKey?: string | undefined;
  /** Longest wait for response headers and between body chunks. Default 60 000 ms. */
  requestTimeoutMs?: number | undefined;
  /** Longest wait for a TCP / websocket connection. Default 10 000 ms. */
  connectTimeoutMs?: number | undefined;
  /** Cap on pooled keep-alive HTTP connections. Default 32. */
  maxConnections?: number | undefined;
  /**
   * How long a running command may wait for a dropped connection to come back before it
   * fails with `CONNECTION_ERROR`. Default 30 000 ms.
   */
  reconnectTimeoutMs?: number | undefined;
  /** Cap on captured bytes per stream; the tail is kept. Default 10 MiB. */
  maxOutputBytes?: number | undefined;
}

/**
 * A workspace on an agent-server (ours or OpenHands'), reached over HTTP and websockets.
 *
 * - **Commands**: when `/server_info` lists the streaming-exec capability, commands run over
 *   one shared websocket with live output, kill signals and resume after a dropped connection;
 *   otherwise over the plain OpenHands protocol (`start_bash_command` + adaptive polling of
 *   `bash_events/search`). Either way `cwd` is always sent (resolved against `workingDir`),
 *   the timeout goes to the server in fractional seconds, and a client guard
 *   {@link CLIENT_TIMEOUT_GRACE_MS} later reports `timeoutOccurred` with the output so far.
 * - **Errors**: a non-zero exit is a result; an unreachable server is `CONNECTION_ERROR`, a
 *   rejected key `AUTHENTICATION_ERROR`, a 5xx `SERVER_ERROR`, a malformed answer
 *   `PROTOCOL_ERROR` — never a fake exit code.
 * - **Files** stream both ways (see `uploadRemoteFile`, `downloadRemoteFile`); whole
 *   directories too (the `directoryTransfer` capability): one tar stream each way when the
 *   server lists the directory-archive capability, file by file over the OpenHands routes
 *   otherwise (`uploadRemoteDirectory` / `uploadDirectoryFileByFile`, `downloadRemoteDirectory`
 *   / `downloadDirectoryByListing`).
 * - **Runtime plugins** (the `runtimeActions` capability): `executeAction` over OpenHands'
 *   `POST /execute_action`, with typed `browse`, `browseInteractive` and `runIpython`;
 *   `runtimePlugins()` lists the server's plugins. A server without the route (an OpenHands V1
 *   agent-server) gives `NOT_SUPPORTED`.
 * - `pause()` / `resume()` reject with `NOT_SUPPORTED`: a client cannot suspend its server.
 * - `identity()` asks the server (`GET /api/workspace/identity`) when it lists the
 *   workspace-identity capability: id, anchor, execution root and projection are the server's,
 *   `cwd` is this workspace's `workingDir`. An OpenHands server has no such route: then the id
 *   is derived from `host` and `workingDir`, and the rest are the defaults.
 * - The HTTP and websocket clients and the wire schemas load on first use, not on import.
 *
 * @example
 * ```ts
 * await using workspace = new RemoteWorkspace({
 *   host: 'http://127.0.0.1:8000',
 *   workingDir: '/workspace',
 *   apiKey: process.env.SESSION_API_KEY,
 * });
 * const result = await workspace.executeCommand('ls -la', { onStdout: process.stdout.write });
 * ```
 */
export class RemoteWorkspace extends BaseWorkspace {
  readonly kind = 'remote';
  /** Base URL of the agent-server, without a trailing slash. */
  readonly host: string;
  /** Private, so inspecting or logging the workspace does not print the key. */
  readonly #apiKey: string | undefined;
  readonly #transportOptions: RemoteTransportOptions;
  #transport: Promise<RemoteTransport> | undefined;

  constructor(options: RemoteWorkspaceOptions) {
    super({ workingDir: options.workingDir });
    this.#apiKey = options.apiKey;
    const requestTimeoutMs = positiveOption(options.requestTimeoutMs, 60_000, 'requestTimeoutMs');
    const connectTimeoutMs = positiveOption(options.connectTimeoutMs, 10_000, 'connectTimeoutMs');
    const reconnectTimeoutMs = positiveOption(
      options.reconnectTimeoutMs,
      30_000,
      'reconnectTimeoutMs',
    );
    const maxOutputBytes = positiveOption(
      options.maxOutputBytes,
      DEFAULT_MAX_OUTPUT_BYTES,
      'maxOutputBytes',
    );
    const maxConnections = positiveOption(options.maxConnections, 32, 'maxConnections');
    this.host = agentServerBaseUrl(options.host).host;
    this.#transportOptions = {
      host: this.host,
      workingDir: this.workingDir,
      apiKey: options.apiKey,
      requestTimeoutMs,
      connectTimeoutMs,
      reconnectTimeoutMs,
      maxConnections,
      maxOutputBytes,
    };
  }

  /** The agent-server this workspace talks to; the key is a non-enumerable property. */
  async agentServerEndpoint(): Promise<AgentServerEndpoint> {
    this.assertOpen();
    return agentServerEndpoint(this.host, this.#apiKey);
  }

  /** Fetches `GET /server_info` (never cached). */
  async serverInfo(): Promise<ServerInfo> {
    this.assertOpen();
    return (await this.#connect()).serverInfo();
  }

  /**
   * Opens what a first command needs (the server's capabilities, the exec socket) ahead of it.
   * Never rejects: a failure is left to the operation that needs the connection.
   */
  async prepare(): Promise<void> {
    if (this.closed) return;
    await this.#connect().then(
      (transport) => transport.prepare(),
      () => {},
    );
  }

  /** True when `GET /health` answers 2xx within the connect timeout; never throws for that. */
  async alive(): Promise<boolean> {
    this.assertOpen();
    return (await this.#connect()).alive();
  }

  /** The server's identity of its working directory, or one derived from `host` without it. */
  protected override async describeIdentity(
    options: WorkspaceIdentityOptions = {},
  ): Promise<DescribedWorkspaceIdentity> {
    const { signal } = options;
    const transport = await this.#connect();
    if (signal?.aborted) throw abortedError(signal);
    const served = await transport.workspaceIdentity(signal);
    if (served === undefined) {
      return {
        workspaceId: workspaceIdOf({ host: this.host, kind: this.kind, anchor: this.workingDir }),
      };
    }
    const { accessMode: _serverAccessMode, cwd: _serverCwd, ...identity } = served;
    return identity;
  }

  /** Whole directories and runtime plugin actions, both through the agent-server. */
  override get capabilities(): WorkspaceCapabilities {
    return AGENT_SERVER_CAPABILITIES;
  }

  protected async runCommand(request: CommandRequest): Promise<CommandResult> {
    return (await this.#connect()).runCommand(request);
  }

  protected async runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return (await this.#connect()).fileUpload(sourcePath, destinationPath);
  }

  protected async runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return (await this.#connect()).fileDownload(sourcePath, destinationPath);
  }

  protected async runGitChanges(repositoryPath: string): Promise<GitChange[]> {
    return (await this.#connect()).gitChanges(repositoryPath);
  }

  protected async runGitDiff(filePath: string): Promise<GitDiff> {
    return (await this.#connect()).gitDiff(filePath);
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
    return (await this.#connect()).executeAction(action, options.signal);
  }

  /** `/server_info` `plugins` (`[]` for an OpenHands server). */
  protected override async runRuntimePlugins(
    options: CapabilityHookOptions,
  ): Promise<RuntimePluginStatusWire[]> {
    return (await (await this.#connect()).serverInfo(options.signal)).plugins;
  }

  protected override async runUploadDirectory(
    sourcePath: string,
    destinationPath: string,
    options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    return (await this.#connect()).directoryUpload(sourcePath, destinationPath, options.signal);
  }

  protected override async runDownloadDirectory(
    sourcePath: string,
    destinationPath: string,
    options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    return (await this.#connect()).directoryDownload(sourcePath, destinationPath, options.signal);
  }

  protected async runClose(): Promise<void> {
    await (await this.#transport)?.close();
  }

  /**
   * The transport (HTTP pool, exec socket, wire schemas), loaded and created on first use: an
   * application that never talks to a server does not load undici, ws or zod.
   */
  #connect(): Promise<RemoteTransport> {
    this.#transport ??= import('./remote-transport.js').then(
      ({ RemoteTransport }) => new RemoteTransport(this.#transportOptions),
    );
    return this.#transport;
  }
}
