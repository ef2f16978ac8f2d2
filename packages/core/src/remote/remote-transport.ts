import { setMaxListeners } from 'node:events';
import type {
  ActionWire,
  CommandResult,
  FileOperationResult,
  InitState,
  ObservationWire,
  ServerInfo,
  WorkspaceIdentity,
  WorkspaceMetrics,
} from '@agent-workspace/protocol';
import {
  AGENT_SERVER_ROUTES,
  DIRECTORY_ARCHIVE_CAPABILITY,
  EXEC_STREAM_CAPABILITY,
  EXEC_STREAM_PATH,
} from '@agent-workspace/protocol/constants';
import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { anySignal } from '../internal/any-signal.js';
import { timeoutSignal } from '../internal/timeout-signal.js';
import type { CommandRequest } from '../workspace/base-workspace.js';
import type { DirectoryTransferResult } from '../workspace/directory-transfer.js';
import type { CheckedFileWatchOptions, FileWatcher } from '../workspace/file-watch.js';
import type { ExposedPort } from '../workspace/port-exposure.js';
import { AgentServerClient } from './agent-server-client.js';
import { createRemoteDirectory } from './create-remote-directory.js';
import { downloadRemoteFile } from './download-remote-file.js';
import { ExecConnection } from './exec-connection.js';
import type { PortForwarderOptions } from './port-forwarder.js';
import { RemoteExtensions } from './remote-extensions.js';
import { RemoteGitQueries } from './remote-git-queries.js';
import { initializeRemote, remoteInitState } from './remote-init.js';
import { RemoteServerInfo } from './remote-server-info.js';
import type { RemoteTransportOptions } from './remote-workspace-options.js';
import { retryWhenBusy } from './retry-when-busy.js';
import { type PolledCommandState, runPolledCommand } from './run-polled-command.js';
import { runStreamedCommand } from './run-streamed-command.js';
import { uploadRemoteFile } from './upload-remote-file.js';
import type {
  WorkspaceArchiveOptions,
  WorkspaceArchiveResult,
} from './workspace-archive-options.js';

export type { RemoteTransportOptions };

/**
 * What a `RemoteWorkspace` does on the wire: the HTTP pool (undici), the exec socket (ws) and
 * the wire schemas. `RemoteWorkspace` loads this module on first use, so an application that
 * imports core for a local workspace never loads them; and this module loads each of them on
 * first need (the schemas through `loadWireSchemas`, the directory transfers with their tar
 * code on the first one), so a file transfer loads neither zod nor tar-stream.
 */
export class RemoteTransport {
  readonly #options: RemoteTransportOptions;
  readonly #client: AgentServerClient;
  readonly #execConnection: ExecConnection;
  /** Aborted by `close()`, with a `WORKSPACE_CLOSED` reason. */
  readonly #closing = new AbortController();
  /** Commands and kills in flight; `close()` waits for them to wind down. */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** `/server_info`, and the capabilities of its first answer. */
  readonly #serverInfo: RemoteServerInfo;
  /** State of the polled mode, shared by its commands. */
  readonly #polled: PolledCommandState = { integerTimeouts: false };
  /** The git routes, cut short by `close()`. */
  readonly git: RemoteGitQueries;
  /** Identity, metrics, port proxy, watching, archives and actions. */
  readonly #extensions: RemoteExtensions;

  constructor(options: RemoteTransportOptions) {
    this.#options = options;
    this.#client = new AgentServerClient(options);
    this.#serverInfo = new RemoteServerInfo(this.#client, this.#closing.signal);
    this.#execConnection = new ExecConnection({
      url: this.#client.websocketUrl(EXEC_STREAM_PATH),
      host: options.host,
      apiKey: options.apiKey,
      connectTimeoutMs: options.connectTimeoutMs,
      reconnectTimeoutMs: options.reconnectTimeoutMs,
    });
    // Every running command listens on this signal.
    setMaxListeners(0, this.#closing.signal);
    this.git = new RemoteGitQueries(this.#client, this.#closing.signal);
    this.#extensions = new RemoteExtensions({
      options,
      client: this.#client,
      closing: this.#closing.signal,
      capabilities: () => this.#serverInfo.capabilities(),
      track: (work) => this.#track(work),
    });
  }

  /**
   * Fetches `GET /server_info` (never cached); the first answer's capabilities are kept, so the
   * operations that need them do not ask again (see {@link RemoteServerInfo}).
   */
  serverInfo(signal?: AbortSignal): Promise<ServerInfo> {
    return this.#serverInfo.fetch(signal);
  }

  /** The server's workspace identity (see {@link RemoteExtensions.workspaceIdentity}). */
  workspaceIdentity(signal?: AbortSignal): Promise<WorkspaceIdentity | undefined> {
    return this.#extensions.workspaceIdentity(signal);
  }

  /** The server's metrics (see {@link RemoteExtensions.metrics}). */
  metrics(signal?: AbortSignal): Promise<WorkspaceMetrics> {
    return this.#extensions.metrics(signal);
  }

  /** Forwards a loopback port to the server's port proxy (see {@link RemoteExtensions.forwardPort}). */
  forwardPort(options: PortForwarderOptions, signal?: AbortSignal): Promise<ExposedPort> {
    return this.#extensions.forwardPort(options, signal);
  }

  /**
   * Opens what a first command needs — the server's capabilities and, when it streams, the exec
   * socket — so it does not pay for them. Never rejects: a failure is met again, and reported,
   * by the operation that needs the connection.
   */
  async prepare(): Promise<void> {
    try {
      const capabilities = await this.#serverInfo.capabilities();
      if (capabilities.includes(EXEC_STREAM_CAPABILITY)) await this.#execConnection.connect();
    } catch {
      // Left to the first operation.
    }
  }

  /** True when `GET /health` answers 2xx within the connect timeout; never throws for that. */
  async alive(): Promise<boolean> {
    const signal = timeoutSignal({
      timeoutMs: this.#options.connectTimeoutMs,
      signal: this.#closing.signal,
    });
    try {
      const reply = await this.#client.call({
        method: 'GET',
        path: AGENT_SERVER_ROUTES.health,
        signal,
      });
      return reply.status >= 200 && reply.status <= 299;
    } catch (error) {
      if (WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED')) throw error;
      return false;
    }
  }

  /** `GET /api/init`: the deferred-init state, `undefined` without deferred init (see {@link remoteInitState}). */
  initState(signal?: AbortSignal): Promise<InitState | undefined> {
    const merged = anySignal([signal, this.#closing.signal]);
    return remoteInitState({ client: this.#client, signal: merged });
  }

  /** `POST /api/init` with this transport's key as the init key (see {@link initializeRemote}). */
  initialize(options: {
    sessionApiKeys?: readonly string[] | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<void> {
    const signal = anySignal([options.signal, this.#closing.signal]);
    const { host, apiKey, requestTimeoutMs, connectTimeoutMs } = this.#options;
    const { sessionApiKeys } = options;
    return this.#track(
      initializeRemote({
        client: this.#client,
        host,
        apiKey,
        requestTimeoutMs,
        connectTimeoutMs,
        sessionApiKeys,
        signal,
      }),
    );
  }

  /** Runs a command, streamed or polled as the server allows; a busy server is tried again. */
  runCommand(request: CommandRequest): Promise<CommandResult> {
    // A busy server (429, too many commands) ran nothing: try again within the command's time.
    return retryWhenBusy(() => this.#runOnce(request), {
      budgetMs: request.timeoutMs,
      signal: anySignal([request.signal, this.#closing.signal]),
    });
  }

  /** Streams a local file to the server (see {@link uploadRemoteFile}). */
  fileUpload(sourcePath: string, destinationPath: string): Promise<FileOperationResult> {
    return uploadRemoteFile({
      client: this.#client,
      sourcePath,
      destinationPath,
      signal: this.#closing.signal,
    });
  }

  /** The server's capabilities, read once from `/server_info` (a failure is retried next time). */
  capabilities(): Promise<readonly string[]> {
    return this.#serverInfo.capabilities();
  }

  /** Watches a server directory (see {@link RemoteExtensions.watch}). */
  watch(path: string, options: CheckedFileWatchOptions): Promise<FileWatcher> {
    return this.#extensions.watch(path, options);
  }

  /** Makes a directory and its parents on the server (see {@link createRemoteDirectory}). */
  createDirectory(path: string): Promise<void> {
    return createRemoteDirectory({ client: this.#client, path, signal: this.#closing.signal });
  }

  /** Streams a server file to the local disk (see {@link downloadRemoteFile}). */
  fileDownload(sourcePath: string, destinationPath: string): Promise<FileOperationResult> {
    return downloadRemoteFile({
      client: this.#client,
      sourcePath,
      destinationPath,
      signal: this.#closing.signal,
    });
  }

  /** OpenHands' workspace archive of a server directory (see {@link RemoteExtensions.workspaceArchive}). */
  workspaceArchive(
    sourcePath: string,
    destinationPath: string,
    options: WorkspaceArchiveOptions,
  ): Promise<WorkspaceArchiveResult> {
    return this.#extensions.workspaceArchive(sourcePath, destinationPath, options);
  }

  /** Copies a local directory to the server (see {@link transferRemoteDirectory}). */
  directoryUpload(
    sourcePath: string,
    destinationPath: string,
    signal?: AbortSignal,
  ): Promise<DirectoryTransferResult> {
    return this.#directoryTransfer('upload', sourcePath, destinationPath, signal);
  }

  /** Copies a server directory to this machine (see {@link transferRemoteDirectory}). */
  directoryDownload(
    sourcePath: string,
    destinationPath: string,
    signal?: AbortSignal,
  ): Promise<DirectoryTransferResult> {
    return this.#directoryTransfer('download', sourcePath, destinationPath, signal);
  }

  /** Runs an OpenHands action on the server (see {@link RemoteExtensions.executeAction}). */
  executeAction(action: ActionWire, signal?: AbortSignal): Promise<ObservationWire> {
    return this.#extensions.executeAction(action, signal);
  }

  /** Closes once the operations running now have ended (the workspace moved to another key). */
  async retire(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    await this.close();
  }

  /** Ends what runs with `WORKSPACE_CLOSED`, then closes the socket and the pool. */
  async close(): Promise<void> {
    this.#closing.abort(
      new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: `the remote workspace at ${this.#options.host} was closed`,
      }),
    );
    // Aborted commands send their kills before the connections go.
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    await this.#execConnection.close();
    await this.#client.close();
  }

  #runOnce(request: CommandRequest): Promise<CommandResult> {
    return this.#track(
      (async () => {
        const streaming = (await this.#serverInfo.capabilities()).includes(EXEC_STREAM_CAPABILITY);
        if (request.signal?.aborted) throw abortedError(request.signal);
        if (this.#closing.signal.aborted) throw this.#closing.signal.reason;
        const { maxOutputBytes, reconnectTimeoutMs, workingDir } = this.#options;
        if (streaming) {
          return runStreamedCommand({
            execConnection: this.#execConnection,
            request,
            closing: this.#closing.signal,
            maxOutputBytes,
          });
        }
        return runPolledCommand({
          client: this.#client,
          request,
          closing: this.#closing.signal,
          workingDir,
          maxOutputBytes,
          reconnectTimeoutMs,
          state: this.#polled,
          track: (work) => this.#track(work),
        });
      })(),
    );
  }

  /** Runs a directory transfer, tracked, with the capability looked up and `close()` heeded. */
  #directoryTransfer(
    direction: 'upload' | 'download',
    sourcePath: string,
    destinationPath: string,
    signal: AbortSignal | undefined,
  ): Promise<DirectoryTransferResult> {
    const merged = anySignal([signal, this.#closing.signal]);
    return this.#track(
      (async () => {
        const archives = (await this.#serverInfo.capabilities()).includes(
          DIRECTORY_ARCHIVE_CAPABILITY,
        );
        // Loaded with the tar code it brings, on the first directory transfer.
        const { transferRemoteDirectory } = await import('./transfer-remote-directory.js');
        if (merged.aborted)
          throw this.#closing.signal.aborted ? merged.reason : abortedError(merged);
        return transferRemoteDirectory({
          direction,
          client: this.#client,
          sourcePath,
          destinationPath,
          archives,
          workingDir: this.#options.workingDir,
          runCommand: (request) => this.runCommand(request),
          signal: merged,
        });
      })(),
    );
  }

  /** Registers `work` until it settles, so `close()` can wait for it. */
  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const forget = () => this.#inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }
}
