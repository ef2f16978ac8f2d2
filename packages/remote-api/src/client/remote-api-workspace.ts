import { randomUUID } from 'node:crypto';
import {
  type ReleaseSandboxOptions,
  type SandboxEndpoint,
  type SandboxHookOptions,
  type SandboxLogsOptions,
  type SandboxState,
  SandboxWorkspace,
  startOrClose,
  type WorkspaceCapabilities,
  WorkspaceError,
  type WorkspaceFork,
  type WorkspaceForkOptions,
} from '@agent-workspace/core';
import { parseWorkspaceOptions } from '@agent-workspace/core/internal';
import type { RuntimeSession, RuntimeSnapshot } from '@agent-workspace/protocol';
import {
  type RemoteAPIWorkspaceOptions,
  type ResolvedRemoteAPIWorkspaceOptions,
  remoteApiWorkspaceOptionsSchema,
  startRequestBody,
} from './remote-api-workspace-options.js';
import { RuntimeApiClient, type TakeRuntimeSnapshotOptions } from './runtime-api-client.js';
import { endpointOf, refusedByServer, sessionSandboxState } from './session-sandbox-state.js';
import { waitForReadySession } from './wait-for-ready-session.js';

/** Options of {@link RemoteAPIWorkspace.fork}. */
export interface ForkRemoteAPIWorkspaceOptions extends WorkspaceForkOptions {
  /** The fork's session id. @default `agent-server-<32 hex>` */
  sessionId?: string | undefined;
}

/** Options of {@link RemoteAPIWorkspace.create}. */
export interface CreateRemoteAPIWorkspaceOptions {
  /** Aborting releases what was started and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/**
 * A workspace whose sandbox is provisioned through a Runtime API (the OpenHands runtime API,
 * e.g. the `runtime-api` server of this package), then used through its agent-server.
 *
 * - Start: `GET /sessions/{sessionId}` — a `running` session is attached to, a `paused` one
 *   resumed (`POST /resume`) and attached to, a `stopped` one is a `PROVISIONING_ERROR`; an
 *   unknown id is started (`POST /start`). Then the session is read again (50 ms → 1 s) until
 *   its `pod_status` is `ready` and its agent-server answers `/health`, within
 *   `startupTimeoutMs`. A fatal `pod_status` is a `PROVISIONING_ERROR` with the runtime's
 *   message (`details.podStatus`).
 * - `pause()` / `resume()` are `POST /pause` / `POST /resume`; after a resume the workspace
 *   follows the session to its new URL when it moved (a rescheduled Swarm task does).
 * - `close()`: with `keepAlive` nothing, with `pauseOnClose` `POST /pause`, else `POST /stop`.
 *   A failed start always stops a session this workspace started. Release is explicit
 *   (`close()` or `await using`): no finalizer, no exit hook.
 * - Keys never cross hops: the Runtime API key goes to the Runtime API only (`X-API-Key`), the
 *   session key to the agent-server only (`SESSION_API_KEY_HEADER`). Both live in private fields,
 *   never in enumerable properties, errors or logs.
 *
 * @example
 * ```ts
 * await using workspace = await RemoteAPIWorkspace.create({
 *   runtimeApiUrl: 'http://127.0.0.1:3000',
 *   runtimeApiKey: process.env.RUNTIME_API_KEY ?? '',
 *   image: 'agent-workspace/agent-server:latest', // one of the Runtime API server's images
 * });
 * const result = await workspace.executeCommand('uname -a');
 * ```
 */
export class RemoteAPIWorkspace
  extends SandboxWorkspace
  implements WorkspaceFork<ForkRemoteAPIWorkspaceOptions, RemoteAPIWorkspace>
{
  readonly kind = 'remote-api';
  readonly #options: ResolvedRemoteAPIWorkspaceOptions;
  readonly #sessionId: string;
  /** Talks to the Runtime API; holds the runtime key. */
  readonly #runtime: RuntimeApiClient;
  /** The latest read of the session; its key is the agent-server's. */
  #session: RuntimeSession | undefined;
  /** The agent-server endpoint in use; its key is the session key. */
  #endpoint: SandboxEndpoint | undefined;
  /** True once `POST /start` was sent and not refused: this workspace may have made the session. */
  #startSent = false;
  /** The snapshot {@link fork} made this workspace from. */
  #forkedFrom: RuntimeSnapshot | undefined;

  /**
   * Validates `options` (an `INVALID_CONFIG` error names each bad field) without calling the
   * Runtime API; `start()` (or the first operation) provisions the sandbox.
   * {@link RemoteAPIWorkspace.create} does both.
   */
  constructor(options: RemoteAPIWorkspaceOptions) {
    const resolved = parseWorkspaceOptions(remoteApiWorkspaceOptionsSchema, options, {
      kind: 'remote-api',
    });
    super({
      workingDir: resolved.workingDir,
      startupTimeoutMs: resolved.startupTimeoutMs,
      lifecycleTimeoutMs: resolved.lifecycleTimeoutMs,
      requestTimeoutMs: resolved.requestTimeoutMs,
    });
    this.#options = resolved;
    this.#sessionId = resolved.sessionId ?? `agent-server-${randomUUID().replaceAll('-', '')}`;
    this.#runtime = new RuntimeApiClient({
      url: resolved.runtimeApiUrl,
      apiKey: resolved.runtimeApiKey,
      requestTimeoutMs: resolved.requestTimeoutMs,
    });
  }

  /**
   * Creates a workspace and starts it: resolves once the session's agent-server answers.
   * Rejects (stopping what it started) with `INVALID_CONFIG`, `AUTHENTICATION_ERROR` (the
   * Runtime API refused the key), `INVALID_ARGUMENT` (the Runtime API refused the request),
   * `RESOURCE_EXHAUSTED`, `CONNECTION_ERROR`, `PROVISIONING_ERROR` or `ABORTED`.
   */
  static async create(
    options: RemoteAPIWorkspaceOptions,
    { signal }: CreateRemoteAPIWorkspaceOptions = {},
  ): Promise<RemoteAPIWorkspace> {
    return startOrClose(new RemoteAPIWorkspace(options), { signal });
  }

  /** The Runtime API session id (given, or generated as `agent-server-<32 hex>`). */
  get sessionId(): string {
    return this.#sessionId;
  }

  /** The Runtime API's id of this run of the session, once known. */
  get runtimeId(): string | undefined {
    return this.#session?.runtimeId;
  }

  /** Base URL of the session's agent-server as the Runtime API reports it, once known. */
  get runtimeUrl(): string | undefined {
    return this.#session?.url || undefined;
  }

  /**
   * Snapshots the session's filesystem through the Runtime API (`POST /snapshots`, ours),
   * starting the workspace first if needed: its files anywhere outside mounts, with their git
   * history, but not its processes and no value of its environment. A paused session stays
   * paused. Start another workspace from it with `fromSnapshot: snapshot.snapshotId` and
   * `image: snapshot.image`; remove it with `RuntimeApiClient.removeSnapshot`.
   *
   * Rejects with `WORKSPACE_CLOSED` after `close()`, `NOT_SUPPORTED` on a Runtime API without
   * snapshots (the Swarm backend, OpenHands), `INVALID_ARGUMENT` for a bad `name`, `ABORTED`.
   *
   * @example
   * ```ts
   * await workspace.executeCommand('git init && npm install');
   * const snapshot = await workspace.snapshot({ name: 'deps installed' });
   * await using copy = await RemoteAPIWorkspace.create({
   *   ...options,
   *   image: snapshot.image,
   *   fromSnapshot: snapshot.snapshotId,
   * });
   * ```
   */
  async snapshot({ name, signal }: TakeRuntimeSnapshotOptions = {}): Promise<RuntimeSnapshot> {
    this.assertOpen();
    await this.start({ signal });
    this.assertOpen();
    return this.#runtime.takeSnapshot(this.#knownRuntimeId(), { name, signal });
  }

  /**
   * The agent-server's capabilities, and `fork` ({@link fork}, by a Runtime API snapshot; a
   * Runtime API without snapshots answers it `NOT_SUPPORTED`).
   */
  override get capabilities(): WorkspaceCapabilities {
    return { ...super.capabilities, fork: true };
  }

  /**
   * The snapshot {@link fork} made this workspace from; `undefined` for a workspace not made by
   * `fork()`. Closing the fork keeps it: remove it with `RuntimeApiClient.removeSnapshot` once
   * no session runs it, or start more workspaces from it (`fromSnapshot`).
   */
  get forkedFrom(): RuntimeSnapshot | undefined {
    return this.#forkedFrom;
  }

  /**
   * A new workspace from this one (`WorkspaceFork`): a {@link snapshot}, then a new session
   * started from it with this workspace's options and a new session id. It starts with this
   * workspace's files and git history, not its processes; from then on the two are independent.
   * The snapshot is kept as the fork's {@link forkedFrom}; a fork that fails to start removes it.
   *
   * Rejects like {@link snapshot} and {@link RemoteAPIWorkspace.create}.
   */
  async fork({
    sessionId,
    signal,
  }: ForkRemoteAPIWorkspaceOptions = {}): Promise<RemoteAPIWorkspace> {
    const snapshot = await this.snapshot({ signal });
    const options = {
      ...this.#options,
      sessionId,
      image: snapshot.image,
      fromSnapshot: snapshot.snapshotId,
    };
    try {
      const fork = await RemoteAPIWorkspace.create(options, { signal });
      fork.#forkedFrom = snapshot;
      return fork;
    } catch (error) {
      await this.#runtime.removeSnapshot(snapshot.snapshotId).catch(() => {});
      throw error;
    }
  }

  protected async createSandbox({ signal }: SandboxHookOptions): Promise<void> {
    const existing = await this.#runtime.getSession(this.#sessionId, { signal });
    if (existing) {
      await this.#attach(existing, signal);
      return;
    }
    this.#startSent = true;
    try {
      this.#session = await this.#runtime.start(startRequestBody(this.#options, this.#sessionId), {
        signal,
      });
    } catch (error) {
      // A 4xx refusal made nothing (a 409 is someone else's session: never stop it).
      if (refusedByServer(error)) this.#startSent = false;
      throw error;
    }
  }

  protected async startSandbox({ signal }: SandboxHookOptions): Promise<SandboxEndpoint> {
    this.#endpoint = endpointOf(await this.#waitUntilReady(signal));
    return this.#endpoint;
  }

  protected async sandboxState({ signal }: SandboxHookOptions): Promise<SandboxState> {
    const session = await this.#runtime.getSession(this.#sessionId, { signal });
    if (session) this.#session = session;
    return sessionSandboxState(session);
  }

  protected async sandboxLogs({ signal, tailLines }: SandboxLogsOptions): Promise<string> {
    const session = await this.#runtime.getSession(this.#sessionId, { signal });
    const message = session?.message?.trimEnd();
    return message ? message.split('\n').slice(-tailLines).join('\n') : '';
  }

  protected override async pauseSandbox({ signal }: SandboxHookOptions): Promise<void> {
    this.#session = await this.#runtime.pause(this.#knownRuntimeId(), { signal });
  }

  protected override async resumeSandbox({
    signal,
  }: SandboxHookOptions): Promise<SandboxEndpoint | undefined> {
    this.#session = await this.#runtime.resume(this.#knownRuntimeId(), { signal });
    const ready = await this.#waitUntilReady(signal);
    const before = this.#endpoint;
    if (ready.url === before?.host && ready.sessionApiKey === before.apiKey) return undefined;
    this.#endpoint = endpointOf(ready);
    return this.#endpoint;
  }

  protected async releaseSandbox({ signal, reason }: ReleaseSandboxOptions): Promise<void> {
    const action = this.#releaseAction(reason);
    if (action === 'none') return;
    let runtimeId = this.#session?.runtimeId;
    // A `POST /start` cut short may still have made the session.
    if (runtimeId === undefined && this.#startSent) {
      runtimeId = (await this.#runtime.getSession(this.#sessionId, { signal }))?.runtimeId;
    }
    if (runtimeId === undefined) return;
    if (action === 'stop') {
      await this.#runtime.stop(runtimeId, { signal });
      return;
    }
    try {
      this.#session = await this.#runtime.pause(runtimeId, { signal });
    } catch (error) {
      // Gone already: there is nothing left to pause.
      if (!WorkspaceError.isInstance(error, 'NOT_FOUND')) throw error;
    }
  }

  protected override async runClose(): Promise<void> {
    try {
      await super.runClose();
    } finally {
      await this.#runtime.close();
    }
  }

  /** Uses an existing session: a paused one is resumed, a stopped one refused. */
  async #attach(session: RuntimeSession, signal: AbortSignal): Promise<void> {
    this.#session = session;
    if (session.status === 'stopped') {
      const message = session.message ? `: ${session.message}` : '';
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `the Runtime API session ${this.#sessionId} has stopped${message}; stop it (POST /stop) or use another sessionId`,
        details: {
          sessionId: this.#sessionId,
          runtimeId: session.runtimeId,
          status: session.status,
          podStatus: session.podStatus,
        },
      });
    }
    if (session.status === 'paused') {
      this.#session = await this.#runtime.resume(session.runtimeId, { signal });
    }
  }

  #waitUntilReady(signal: AbortSignal): Promise<RuntimeSession> {
    return waitForReadySession({
      runtime: this.#runtime,
      sessionId: this.#sessionId,
      signal,
      onSession: (session) => {
        this.#session = session;
      },
    });
  }

  /**
   * What releasing does: a failed start stops a session this workspace started; otherwise
   * `keepAlive` leaves the session, `pauseOnClose` pauses it on close (and leaves it after a
   * failed attach), and the default stops it.
   */
  #releaseAction(reason: ReleaseSandboxOptions['reason']): 'none' | 'pause' | 'stop' {
    if (reason === 'failed-start' && this.#startSent) return 'stop';
    if (this.#options.keepAlive) return 'none';
    if (this.#options.pauseOnClose) return reason === 'close' ? 'pause' : 'none';
    return 'stop';
  }

  #knownRuntimeId(): string {
    const runtimeId = this.#session?.runtimeId;
    if (runtimeId === undefined) {
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `the Runtime API session ${this.#sessionId} has no runtime id yet`,
      });
    }
    return runtimeId;
  }
}
