import { setMaxListeners } from 'node:events';
import {
  AGENT_SERVER_ROUTES,
  type CommandResult,
  EXEC_STREAM_CAPABILITY,
  EXEC_STREAM_PATH,
  type FileOperationResult,
  type GitChange,
  type GitDiff,
  gitChangeWireSchema,
  gitDiffWireSchema,
  type ServerInfo,
  serverInfoFromWire,
} from '@agent-workspace/protocol';
import { z } from 'zod';
import { abortedError } from '../errors/aborted-error.js';
import { positiveOption } from '../errors/positive-option.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../internal/output/default-max-output-bytes.js';
import {
  type AgentServerEndpoint,
  agentServerEndpoint,
} from '../workspace/agent-server-endpoint.js';
import { BaseWorkspace, type CommandRequest } from '../workspace/base-workspace.js';
import { AgentServerClient } from './agent-server-client.js';
import { CLIENT_TIMEOUT_GRACE_MS } from './client-timeout-grace.js';
import { downloadRemoteFile } from './download-remote-file.js';
import { ExecConnection } from './exec-connection.js';
import { remoteGit } from './remote-git.js';
import { retryWhenBusy } from './retry-when-busy.js';
import { type PolledCommandState, runPolledCommand } from './run-polled-command.js';
import { runStreamedCommand } from './run-streamed-command.js';
import { uploadRemoteFile } from './upload-remote-file.js';

/** Re-exported: core's index and callers take it from here. */
export { CLIENT_TIMEOUT_GRACE_MS };

const gitChangesSchema = z.array(gitChangeWireSchema);

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
 * - **Files** stream both ways (see {@link uploadRemoteFile}, {@link downloadRemoteFile}).
 * - `pause()` / `resume()` reject with `NOT_SUPPORTED`: a client cannot suspend its server.
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
  readonly #client: AgentServerClient;
  /** Private, so inspecting or logging the workspace does not print the key. */
  readonly #apiKey: string | undefined;
  readonly #execConnection: ExecConnection;
  readonly #connectTimeoutMs: number;
  readonly #reconnectTimeoutMs: number;
  readonly #maxOutputBytes: number;
  /** Aborted by `close()`, with a `WORKSPACE_CLOSED` reason. */
  readonly #closing = new AbortController();
  /** Commands and kills in flight; `close()` waits for them to wind down. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #capabilities: Promise<readonly string[]> | undefined;
  /** State of the polled mode, shared by its commands. */
  readonly #polled: PolledCommandState = { integerTimeouts: false };

  constructor(options: RemoteWorkspaceOptions) {
    super({ workingDir: options.workingDir });
    this.#apiKey = options.apiKey;
    const requestTimeoutMs = positiveOption(options.requestTimeoutMs, 60_000, 'requestTimeoutMs');
    this.#connectTimeoutMs = positiveOption(options.connectTimeoutMs, 10_000, 'connectTimeoutMs');
    this.#reconnectTimeoutMs = positiveOption(
      options.reconnectTimeoutMs,
      30_000,
      'reconnectTimeoutMs',
    );
    this.#maxOutputBytes = positiveOption(
      options.maxOutputBytes,
      DEFAULT_MAX_OUTPUT_BYTES,
      'maxOutputBytes',
    );
    this.#client = new AgentServerClient({
      host: options.host,
      apiKey: options.apiKey,
      requestTimeoutMs,
      connectTimeoutMs: this.#connectTimeoutMs,
      maxConnections: positiveOption(options.maxConnections, 32, 'maxConnections'),
    });
    this.host = this.#client.host;
    this.#execConnection = new ExecConnection({
      url: this.#client.websocketUrl(EXEC_STREAM_PATH),
      host: this.host,
      apiKey: options.apiKey,
      connectTimeoutMs: this.#connectTimeoutMs,
      reconnectTimeoutMs: this.#reconnectTimeoutMs,
    });
    // Every running command listens on this signal.
    setMaxListeners(0, this.#closing.signal);
  }

  /** The agent-server this workspace talks to; the key is a non-enumerable property. */
  async agentServerEndpoint(): Promise<AgentServerEndpoint> {
    this.assertOpen();
    return agentServerEndpoint(this.host, this.#apiKey);
  }

  /** Fetches `GET /server_info` (never cached). */
  async serverInfo(): Promise<ServerInfo> {
    this.assertOpen();
    return this.#fetchServerInfo();
  }

  /** True when `GET /health` answers 2xx within the connect timeout; never throws for that. */
  async alive(): Promise<boolean> {
    this.assertOpen();
    const signal = AbortSignal.any([
      this.#closing.signal,
      AbortSignal.timeout(this.#connectTimeoutMs),
    ]);
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

  protected runCommand(request: CommandRequest): Promise<CommandResult> {
    // A busy server (429, too many commands) ran nothing: try again within the command's time.
    return retryWhenBusy(() => this.#runOnce(request), {
      budgetMs: request.timeoutMs,
      signal: request.signal
        ? AbortSignal.any([request.signal, this.#closing.signal])
        : this.#closing.signal,
    });
  }

  #runOnce(request: CommandRequest): Promise<CommandResult> {
    return this.#track(
      (async () => {
        const streaming = (await this.#serverCapabilities()).includes(EXEC_STREAM_CAPABILITY);
        if (request.signal?.aborted) throw abortedError(request.signal);
        if (this.#closing.signal.aborted) throw this.#closing.signal.reason;
        if (streaming) {
          return runStreamedCommand({
            execConnection: this.#execConnection,
            request,
            closing: this.#closing.signal,
            maxOutputBytes: this.#maxOutputBytes,
          });
        }
        return runPolledCommand({
          client: this.#client,
          request,
          closing: this.#closing.signal,
          workingDir: this.workingDir,
          maxOutputBytes: this.#maxOutputBytes,
          reconnectTimeoutMs: this.#reconnectTimeoutMs,
          state: this.#polled,
          track: (work) => this.#track(work),
        });
      })(),
    );
  }

  protected runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return uploadRemoteFile({
      client: this.#client,
      sourcePath,
      destinationPath,
      signal: this.#closing.signal,
    });
  }

  protected runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return downloadRemoteFile({
      client: this.#client,
      sourcePath,
      destinationPath,
      signal: this.#closing.signal,
    });
  }

  protected runGitChanges(repositoryPath: string): Promise<GitChange[]> {
    return this.#git(AGENT_SERVER_ROUTES.gitChanges, repositoryPath, (json) =>
      gitChangesSchema.parse(json),
    );
  }

  protected runGitDiff(filePath: string): Promise<GitDiff> {
    return this.#git(AGENT_SERVER_ROUTES.gitDiff, filePath, (json) =>
      gitDiffWireSchema.parse(json),
    );
  }

  protected async runClose(): Promise<void> {
    this.#closing.abort(
      new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: `the remote workspace at ${this.host} was closed`,
      }),
    );
    // Aborted commands send their kills before the connections go.
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    await this.#execConnection.close();
    await this.#client.close();
  }

  /** Capabilities from the first successful `/server_info` (a failure is retried next time). */
  #serverCapabilities(): Promise<readonly string[]> {
    if (!this.#capabilities) {
      const pending = this.#fetchServerInfo().then((info) => info.capabilities);
      this.#capabilities = pending;
      pending.catch(() => {
        if (this.#capabilities === pending) this.#capabilities = undefined;
      });
    }
    return this.#capabilities;
  }

  #fetchServerInfo(): Promise<ServerInfo> {
    return this.#client.json(
      { method: 'GET', path: AGENT_SERVER_ROUTES.serverInfo, signal: this.#closing.signal },
      serverInfoFromWire,
    );
  }

  /** Registers `work` until it settles, so `close()` can wait for it. */
  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const forget = () => this.#inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** A git route, cut short by `close()`. */
  #git<T>(path: string, target: string, parse: (json: unknown) => T): Promise<T> {
    return remoteGit({ client: this.#client, path, target, parse, signal: this.#closing.signal });
  }
}
