import type { ServerInfo, WorkspaceMetrics } from '@agent-workspace/protocol';
import {
  FILE_WATCH_CAPABILITY,
  PORT_PROXY_CAPABILITY,
  WORKSPACE_METRICS_CAPABILITY,
} from '@agent-workspace/protocol/constants';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import {
  type AgentServerEndpoint,
  agentServerEndpoint,
} from '../workspace/agent-server-endpoint.js';
import {
  checkFileWatchOptions,
  type FileWatch,
  type FileWatcher,
  type FileWatchOptions,
} from '../workspace/file-watch.js';
import type { ExposedPort, ExposePortOptions } from '../workspace/port-exposure.js';
import type { ResourceMetricsOptions } from '../workspace/resource-metrics.js';
import type { WorkspaceCapabilities } from '../workspace/workspace-capabilities.js';
import {
  type DescribedWorkspaceIdentity,
  type WorkspaceIdentityOptions,
  workspaceIdOf,
} from '../workspace/workspace-identity.js';
import { CLIENT_TIMEOUT_GRACE_MS } from './client-timeout-grace.js';
import { RemoteConnection } from './remote-connection.js';
import type {
  DeferredInitState,
  InitializeWorkspaceOptions,
  InitStateOptions,
} from './remote-init-options.js';
import type { RemoteTransport } from './remote-transport.js';
import {
  AGENT_SERVER_CAPABILITIES,
  type RemoteWorkspaceOptions,
  resolveRemoteWorkspaceOptions,
} from './remote-workspace-options.js';
import { TransportBackedWorkspace } from './transport-backed-workspace.js';

/** Re-exported: core's index and callers take them from here. */
export { AGENT_SERVER_CAPABILITIES, CLIENT_TIMEOUT_GRACE_MS, type RemoteWorkspaceOptions };

/**
 * Our capabilities a server announces in `/server_info`, and the workspace capability each
 * turns on here once seen.
 */
const ANNOUNCED_CAPABILITIES = [
  [FILE_WATCH_CAPABILITY, 'fileWatch'],
  [WORKSPACE_METRICS_CAPABILITY, 'resourceMetrics'],
  [PORT_PROXY_CAPABILITY, 'portExposure'],
] as const;

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
 *   server lists the directory-archive capability; otherwise uploads go file by file over the
 *   OpenHands routes and downloads use OpenHands' `tar.gz` archive, or a listing when that
 *   would not be faithful (`uploadRemoteDirectory` / `uploadDirectoryFileByFile`,
 *   `downloadRemoteDirectory` / `downloadDirectoryTarGz` / `downloadDirectoryByListing`).
 * - **Runtime plugins** (the `runtimeActions` capability): `executeAction` over OpenHands'
 *   `POST /execute_action`, with typed `browse`, `browseInteractive` and `runIpython`;
 *   `runtimePlugins()` lists the server's plugins. A server without the route (an OpenHands V1
 *   agent-server) gives `NOT_SUPPORTED`.
 * - **Deferred init**: a server started dormant (`--defer-init`) answers 503 to all of the above
 *   until `initialize()`; `initState()` tells where it is.
 * - `pause()` / `resume()` reject with `NOT_SUPPORTED`: a client cannot suspend its server.
 * - **File watching** (the `fileWatch` capability): `watch()` over our watch socket (`AGENT_SERVER_ROUTES.fileWatchSocket`) when
 *   the server lists `FILE_WATCH_CAPABILITY`; `NOT_SUPPORTED` from an OpenHands server.
 * - `identity()` asks the server (`AGENT_SERVER_ROUTES.workspaceIdentity`) when it lists the
 *   workspace-identity capability: id, anchor, execution root and projection are the server's,
 *   `cwd` is this workspace's `workingDir`. An OpenHands server has no such route: then the id
 *   is derived from `host` and `workingDir`, and the rest are the defaults.
 * - The HTTP and websocket clients and the wire schemas load on first use, not on import; a
 *   file transfer loads neither the schemas (zod) nor the tar code.
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
export class RemoteWorkspace extends TransportBackedWorkspace implements FileWatch {
  readonly kind = 'remote';
  /** Base URL of the agent-server, without a trailing slash. */
  readonly host: string;
  /** Private, so inspecting or logging the workspace does not print the key. */
  readonly #connection: RemoteConnection;
  /** Ports exposed with `exposePort`, closed with the workspace. */
  readonly #exposed = new Set<ExposedPort>();
  /** What this workspace declares: more once the server is seen to announce it. */
  #capabilities: WorkspaceCapabilities = AGENT_SERVER_CAPABILITIES;

  constructor(options: RemoteWorkspaceOptions) {
    super({ workingDir: options.workingDir });
    const transportOptions = resolveRemoteWorkspaceOptions(options, this.workingDir);
    this.host = transportOptions.host;
    this.#connection = new RemoteConnection(transportOptions);
  }

  /** The agent-server this workspace talks to; the key is a non-enumerable property. */
  async agentServerEndpoint(): Promise<AgentServerEndpoint> {
    this.assertOpen();
    return agentServerEndpoint(this.host, this.#connection.apiKey);
  }

  /** Fetches `GET /server_info` (never cached). */
  async serverInfo(): Promise<ServerInfo> {
    this.assertOpen();
    const info = await (await this.connectTransport()).serverInfo();
    this.#learn(info.capabilities);
    return info;
  }

  /**
   * Opens what a first command needs (the server's capabilities, the exec socket) ahead of it.
   * Never rejects: a failure is left to the operation that needs the connection.
   */
  async prepare(): Promise<void> {
    if (this.closed) return;
    await this.connectTransport().then(
      async (transport) => {
        await transport.prepare();
        this.#learn(await transport.capabilities().catch(() => []));
      },
      () => {},
    );
  }

  /**
   * True when `GET /health` answers 2xx within the connect timeout (a dormant server does too);
   * never throws for that.
   */
  async alive(): Promise<boolean> {
    this.assertOpen();
    return (await this.connectTransport()).alive();
  }

  /**
   * The server's deferred-init state (`GET` of `AGENT_SERVER_ROUTES.init`): `dormant` until {@link initialize},
   * then `ready`; `undefined` when the server was not started with deferred init (it answers 404).
   */
  async initState(options: InitStateOptions = {}): Promise<DeferredInitState | undefined> {
    this.assertOpen();
    return (await this.connectTransport()).initState(options.signal);
  }

  /**
   * Initializes a server started with deferred init (`POST` of `AGENT_SERVER_ROUTES.init`, this workspace's key as
   * `X-Init-API-Key`): it answers 503 to commands, files and sockets until then. With
   * `sessionApiKeys` the server accepts only those afterwards, and this workspace sends the
   * first from then on (`agentServerEndpoint()` too). A server initializes once.
   *
   * @throws WorkspaceError `ALREADY_EXISTS` (initialized before), `AUTHENTICATION_ERROR` (the
   * key was refused), `NOT_SUPPORTED` (no deferred init), `INVALID_ARGUMENT` naming
   * `sessionApiKeys`. No message holds a key.
   */
  async initialize(options: InitializeWorkspaceOptions = {}): Promise<void> {
    this.assertOpen();
    const { sessionApiKeys, signal } = options;
    await (await this.connectTransport()).initialize({ sessionApiKeys, signal });
    const key = sessionApiKeys?.[0];
    if (key !== undefined && key !== this.#connection.apiKey) this.#connection.switchKey(key);
  }

  /** The server's identity of its working directory, or one derived from `host` without it. */
  protected override async describeIdentity(
    options: WorkspaceIdentityOptions = {},
  ): Promise<DescribedWorkspaceIdentity> {
    const { signal } = options;
    const transport = await this.connectTransport();
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

  /**
   * Whole directories, runtime plugin actions and commit history, through the agent-server;
   * `fileWatch`, `resourceMetrics` and `portExposure` too once the server is known to list
   * their capabilities (after `prepare()`, `serverInfo()` or any call that read them).
   */
  override get capabilities(): WorkspaceCapabilities {
    return this.#capabilities;
  }

  /**
   * Watches the server directory `path` (see `FileWatch.watch`) over our watch socket (`AGENT_SERVER_ROUTES.fileWatchSocket`),
   * confined as the server's file routes are. `NOT_SUPPORTED` when the server does not list
   * `FILE_WATCH_CAPABILITY` (an OpenHands server); `RESOURCE_EXHAUSTED` when it watches too
   * many already; the iteration ends with `CONNECTION_ERROR` when the connection drops, and
   * `close()` ends it.
   */
  async watch(path: string, options: FileWatchOptions = {}): Promise<FileWatcher> {
    this.assertOpen();
    const checked = checkFileWatchOptions(options);
    const target = this.resolvePath(path, 'path');
    if (checked.signal?.aborted) throw abortedError(checked.signal);
    const transport = await this.connectTransport();
    this.#learn(await transport.capabilities());
    return transport.watch(target, checked);
  }

  /** Notes what the server announced (only ever turns capabilities on). */
  #learn(announced: readonly string[]): void {
    const learned = ANNOUNCED_CAPABILITIES.filter(
      ([name, key]) => announced.includes(name) && this.#capabilities[key] !== true,
    );
    if (learned.length === 0) return;
    this.#capabilities = Object.freeze({
      ...this.#capabilities,
      ...Object.fromEntries(learned.map(([, key]) => [key, true])),
    });
  }

  /**
   * What the agent-server's sandbox uses now (`ResourceMetrics`): its cgroup's CPU, memory, OOM
   * kills and processes with their limits, and the disk of its working directory.
   *
   * @throws WorkspaceError `NOT_SUPPORTED` against a server without the route (OpenHands).
   */
  async metrics(options: ResourceMetricsOptions = {}): Promise<WorkspaceMetrics> {
    this.assertOpen();
    const transport = await this.connectTransport();
    this.#learn(await transport.capabilities());
    return transport.metrics(options.signal);
  }

  /**
   * Reaches `port` inside the server's sandbox from here (`PortExposure`): a loopback URL that
   * forwards to the server's port proxy with the session key; closed with the workspace.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `port`, `NOT_SUPPORTED` against a server
   * without the port proxy (OpenHands).
   */
  async exposePort(port: number, options: ExposePortOptions = {}): Promise<ExposedPort> {
    this.assertOpen();
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw invalidArgument('port', `must be an integer from 1 to 65535, got ${port}`);
    }
    const connection = this.#connection;
    const transport = await this.connectTransport();
    this.#learn(await transport.capabilities());
    const forwarder = await transport.forwardPort(
      { host: this.host, sessionKey: () => connection.apiKey, port },
      options.signal,
    );
    if (this.closed) {
      await forwarder.close();
      this.assertOpen();
    }
    const exposed: ExposedPort = {
      port,
      url: forwarder.url,
      close: async () => {
        this.#exposed.delete(exposed);
        await forwarder.close();
      },
      [Symbol.asyncDispose]: () => exposed.close(),
    };
    this.#exposed.add(exposed);
    return exposed;
  }

  protected async runClose(): Promise<void> {
    await Promise.all([...this.#exposed].map((exposed) => exposed.close()));
    await this.#connection.close();
  }

  /** The transport of the current key, loaded and created on first use. */
  protected connectTransport(): Promise<RemoteTransport> {
    return this.#connection.transport();
  }
}
