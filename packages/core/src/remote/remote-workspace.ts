import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  type BashOutput,
  bashEventFromWire,
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
import { WorkspaceError } from '../errors/workspace-error.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../local/run-local-command.js';
import {
  abortedError,
  BaseWorkspace,
  type CommandRequest,
  invalidArgument,
} from '../workspace/base-workspace.js';
import { AgentServerClient, type AgentServerRequest, errorDetail } from './agent-server-client.js';
import { CommandOutput } from './command-output.js';
import { downloadRemoteFile } from './download-remote-file.js';
import { ExecStream } from './exec-stream.js';
import { killTokenScript } from './kill-token-script.js';
import { pollBashCommand } from './poll-bash-command.js';
import { uploadRemoteFile } from './upload-remote-file.js';
import { wrapPolledCommand } from './wrap-polled-command.js';

/**
 * How much longer than a command's timeout the client waits for the server to report it; the
 * server kills the tree at the timeout (OpenHands escalates SIGTERM → SIGKILL over 2 s).
 */
export const CLIENT_TIMEOUT_GRACE_MS = 5_000;

/** How long the best-effort kill of a polled command may take, in milliseconds. */
const KILL_TIMEOUT_MS = 10_000;
/** Largest delay `setTimeout` accepts. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const gitChangesSchema = z.array(gitChangeWireSchema);

/** Options of {@link RemoteWorkspace}. */
export interface RemoteWorkspaceOptions {
  /** Base URL of the agent-server, e.g. `http://127.0.0.1:8000` (a path prefix is kept). */
  host: string;
  /** Absolute directory on the server that relative paths and the default cwd resolve against. */
  workingDir: string;
  /** Session API key: sent as `X-Session-API-Key` and as the websocket's first frame. */
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
  readonly #stream: ExecStream;
  readonly #connectTimeoutMs: number;
  readonly #reconnectTimeoutMs: number;
  readonly #maxOutputBytes: number;
  /** Aborted by `close()`, with a `WORKSPACE_CLOSED` reason. */
  readonly #closing = new AbortController();
  /** Commands and kills in flight; `close()` waits for them to wind down. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #capabilities: Promise<readonly string[]> | undefined;
  /** Set once the server refused a fractional timeout (OpenHands' `int` field). */
  #integerTimeouts = false;

  constructor(options: RemoteWorkspaceOptions) {
    super({ workingDir: options.workingDir });
    const requestTimeoutMs = positive(options.requestTimeoutMs, 60_000, 'requestTimeoutMs');
    this.#connectTimeoutMs = positive(options.connectTimeoutMs, 10_000, 'connectTimeoutMs');
    this.#reconnectTimeoutMs = positive(options.reconnectTimeoutMs, 30_000, 'reconnectTimeoutMs');
    this.#maxOutputBytes = positive(
      options.maxOutputBytes,
      DEFAULT_MAX_OUTPUT_BYTES,
      'maxOutputBytes',
    );
    this.#client = new AgentServerClient({
      host: options.host,
      apiKey: options.apiKey,
      requestTimeoutMs,
      connectTimeoutMs: this.#connectTimeoutMs,
      maxConnections: positive(options.maxConnections, 32, 'maxConnections'),
    });
    this.host = this.#client.host;
    this.#stream = new ExecStream({
      url: this.#client.websocketUrl(EXEC_STREAM_PATH),
      host: this.host,
      apiKey: options.apiKey,
      connectTimeoutMs: this.#connectTimeoutMs,
      reconnectTimeoutMs: this.#reconnectTimeoutMs,
    });
    // Every running command listens on this signal.
    setMaxListeners(0, this.#closing.signal);
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
      const reply = await this.#client.call({ method: 'GET', path: '/health', signal });
      return reply.status >= 200 && reply.status <= 299;
    } catch (error) {
      if (WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED')) throw error;
      return false;
    }
  }

  protected runCommand(request: CommandRequest): Promise<CommandResult> {
    return this.#track(
      (async () => {
        const streaming = (await this.#serverCapabilities()).includes(EXEC_STREAM_CAPABILITY);
        if (request.signal?.aborted) throw abortedError(request.signal);
        if (this.#closing.signal.aborted) throw this.#closing.signal.reason;
        return streaming ? this.#runStreamed(request) : this.#runPolled(request);
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
    return this.#git('/api/git/changes', repositoryPath, (json) => gitChangesSchema.parse(json));
  }

  protected runGitDiff(filePath: string): Promise<GitDiff> {
    return this.#git('/api/git/diff', filePath, (json) => gitDiffWireSchema.parse(json));
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
    await this.#stream.close();
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
      { method: 'GET', path: '/server_info', signal: this.#closing.signal },
      serverInfoFromWire,
    );
  }

  /** Streaming mode: one command over the shared exec websocket. */
  #runStreamed(request: CommandRequest): Promise<CommandResult> {
    const { command, signal } = request;
    const closing = this.#closing.signal;
    const output = new CommandOutput({
      maxBytes: this.#maxOutputBytes,
      onStdout: request.onStdout,
      onStderr: request.onStderr,
    });
    const startedAt = performance.now();
    return new Promise<CommandResult>((resolve, reject) => {
      let done = false;
      let guard: NodeJS.Timeout | undefined;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(guard);
        signal?.removeEventListener('abort', onAbort);
        closing.removeEventListener('abort', onClose);
        handle.detach();
        settle();
      };
      const handle = this.#stream.start(
        {
          command,
          cwd: request.cwd,
          timeoutSeconds: request.timeoutMs / 1000,
          env: request.env,
        },
        {
          output: (stream, data) => {
            try {
              output.write(stream, data);
            } catch (error) {
              handle.kill('SIGKILL');
              finish(() => reject(error));
            }
          },
          exit: ({ exitCode, timeoutOccurred, durationMs }) =>
            finish(() =>
              resolve(output.result({ command, exitCode, timeoutOccurred, durationMs })),
            ),
          fail: (error) => finish(() => reject(error)),
        },
      );
      const onAbort = (): void => {
        handle.kill('SIGKILL');
        finish(() => reject(abortedError(signal!)));
      };
      const onClose = (): void => {
        handle.kill('SIGKILL');
        finish(() => reject(closing.reason));
      };
      const armGuard = (delayMs: number): void => {
        guard = setTimeout(
          () => {
            // While reconnecting, the reconnect budget decides (CONNECTION_ERROR or resume).
            if (handle.reconnecting) return armGuard(CLIENT_TIMEOUT_GRACE_MS);
            handle.kill('SIGKILL');
            finish(() =>
              resolve(
                output.result({
                  command,
                  exitCode: -1,
                  timeoutOccurred: true,
                  durationMs: performance.now() - startedAt,
                }),
              ),
            );
          },
          Math.min(delayMs, MAX_TIMER_MS),
        );
      };
      armGuard(request.timeoutMs + CLIENT_TIMEOUT_GRACE_MS);
      signal?.addEventListener('abort', onAbort, { once: true });
      closing.addEventListener('abort', onClose, { once: true });
    });
  }

  /** Plain OpenHands mode: `start_bash_command`, then poll its events. */
  async #runPolled(request: CommandRequest): Promise<CommandResult> {
    const { command } = request;
    const token = randomBytes(16).toString('hex');
    const signal = request.signal
      ? AbortSignal.any([request.signal, this.#closing.signal])
      : this.#closing.signal;
    const output = new CommandOutput({
      maxBytes: this.#maxOutputBytes,
      onStdout: request.onStdout,
      onStderr: request.onStderr,
    });
    const startedAt = performance.now();
    let commandId: string;
    try {
      commandId = await this.#startBashCommand(
        {
          command: wrapPolledCommand({ command, env: request.env, token }),
          cwd: request.cwd,
          timeoutSeconds: request.timeoutMs / 1000,
        },
        signal,
      );
    } catch (error) {
      // Aborted mid-request: the server may have started it.
      if (signal.aborted) await this.#killPolled(token);
      throw this.#abortReason(request.signal, error);
    }
    try {
      const outcome = await pollBashCommand({
        client: this.#client,
        commandId,
        deadline: startedAt + request.timeoutMs + CLIENT_TIMEOUT_GRACE_MS,
        reconnectTimeoutMs: this.#reconnectTimeoutMs,
        signal,
        onOutput: (event) => {
          if (event.stdout !== null) output.write('stdout', event.stdout);
          if (event.stderr !== null) output.write('stderr', event.stderr);
        },
      });
      const durationMs = performance.now() - startedAt;
      if (outcome.kind === 'deadline') {
        await this.#killPolled(token);
        return output.result({ command, exitCode: -1, timeoutOccurred: true, durationMs });
      }
      const { exitCode } = outcome.event;
      if (exitCode === -1) throwIfSpawnFailure(outcome.event, request.cwd);
      return output.result({
        command,
        exitCode: exitCode ?? -1,
        timeoutOccurred: exitCode === -1,
        durationMs,
      });
    } catch (error) {
      if (!WorkspaceError.isInstance(error, 'INVALID_CWD')) await this.#killPolled(token);
      throw this.#abortReason(request.signal, error);
    }
  }

  /** `POST /api/bash/start_bash_command`; returns the command id. */
  async #startBashCommand(
    body: { command: string; cwd: string; timeoutSeconds: number },
    signal: AbortSignal,
  ): Promise<string> {
    const timeout = this.#integerTimeouts ? Math.ceil(body.timeoutSeconds) : body.timeoutSeconds;
    const request: AgentServerRequest = {
      method: 'POST',
      path: '/api/bash/start_bash_command',
      json: { command: body.command, cwd: body.cwd, timeout },
      signal,
    };
    const reply = await this.#client.call(request);
    if (reply.status >= 200 && reply.status <= 299) {
      const event = this.#client.parse(reply, request, bashEventFromWire);
      if (event.kind !== 'BashCommand') {
        throw new WorkspaceError({
          code: 'PROTOCOL_ERROR',
          message: `the agent-server at ${this.host} answered start_bash_command with a ${event.kind}, not a BashCommand`,
        });
      }
      return event.id;
    }
    const detail = errorDetail(reply);
    // OpenHands declares `timeout: int`; fall back to whole seconds once.
    if (reply.status === 422 && !Number.isInteger(timeout) && /timeout/.test(detail)) {
      this.#integerTimeouts = true;
      return this.#startBashCommand(body, signal);
    }
    if ((reply.status === 400 || reply.status === 403) && /\bcwd\b/i.test(detail)) {
      throw invalidCwd(body.cwd, detail);
    }
    if (reply.status === 422) {
      throw new WorkspaceError({
        code: 'INVALID_ARGUMENT',
        message: `the agent-server at ${this.host} rejected the command: ${detail}`,
        details: { status: reply.status, detail },
      });
    }
    throw this.#client.statusError(reply, request);
  }

  /** Best-effort kill of a polled command's processes; `close()` waits for it. */
  #killPolled(token: string): Promise<void> {
    const signal = AbortSignal.timeout(KILL_TIMEOUT_MS);
    const kill = (async (): Promise<void> => {
      try {
        const commandId = await this.#startBashCommand(
          { command: killTokenScript(token), cwd: this.workingDir, timeoutSeconds: 10 },
          signal,
        );
        await pollBashCommand({
          client: this.#client,
          commandId,
          deadline: performance.now() + KILL_TIMEOUT_MS,
          reconnectTimeoutMs: 0,
          signal,
        });
      } catch {
        // Best effort: the server-side timeout still ends the command.
      }
    })();
    return this.#track(kill);
  }

  /** Registers `work` until it settles, so `close()` can wait for it. */
  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const forget = () => this.#inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Maps an error raised because a signal fired to `ABORTED` / `WORKSPACE_CLOSED`. */
  #abortReason(userSignal: AbortSignal | undefined, error: unknown): unknown {
    if (userSignal?.aborted) return abortedError(userSignal);
    if (this.#closing.signal.aborted) return this.#closing.signal.reason;
    return error;
  }

  /**
   * `GET <path>?path=…` of a git route. A 400 carries the server's detail: `INVALID_ARGUMENT`
   * when it is about an argument (`path …`, `ref …`, `commit …`, as our server words them),
   * `GIT_ERROR` otherwise.
   */
  async #git<T>(path: string, target: string, parse: (json: unknown) => T): Promise<T> {
    const request: AgentServerRequest = {
      method: 'GET',
      path,
      query: { path: target },
      signal: this.#closing.signal,
    };
    const reply = await this.#client.call(request);
    if (reply.status >= 200 && reply.status <= 299) {
      return this.#client.parse(reply, request, parse);
    }
    if (reply.status === 400) {
      const detail = errorDetail(reply);
      const field = /^(path|ref|commit)\b/.exec(detail)?.[1];
      throw new WorkspaceError({
        code: field ? 'INVALID_ARGUMENT' : 'GIT_ERROR',
        message: field ? detail : `git failed on ${target}: ${detail}`,
        details: { path: target, status: reply.status, detail, ...(field && { field }) },
      });
    }
    throw this.#client.statusError(reply, request);
  }
}

/** The `INVALID_CWD` error for `cwd`, with the server's explanation. */
function invalidCwd(cwd: string, detail: string): WorkspaceError {
  return new WorkspaceError({
    code: 'INVALID_CWD',
    message: `invalid cwd ${cwd}: ${detail}`,
    details: { path: cwd, detail },
  });
}

/**
 * OpenHands reports a failed spawn (e.g. a missing cwd) as a single event `order: 0`,
 * `exit_code: -1`, `stderr: "Error executing command: …"`; that is an error, not a timeout.
 */
function throwIfSpawnFailure(event: BashOutput, cwd: string): void {
  const stderr = event.stderr ?? '';
  if (event.order !== 0 || event.stdout || !stderr.startsWith('Error executing command:')) return;
  if (/No such file or directory|Not a directory/.test(stderr)) throw invalidCwd(cwd, stderr);
  throw new WorkspaceError({
    code: 'SPAWN_ERROR',
    message: `the agent-server could not start the command: ${stderr}`,
    details: { detail: stderr },
  });
}

/** `value`, or `fallback` when undefined; anything but a positive finite number throws. */
function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidArgument(field, `must be a positive finite number, got ${String(value)}`);
  }
  return value;
}
