import type {
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
  ServerInfo,
} from '@agent-workspace/protocol';
import { WorkspaceError } from '../errors/workspace-error.js';
import { RemoteWorkspace } from '../remote/remote-workspace.js';
import { abortedError, BaseWorkspace, type CommandRequest } from '../workspace/base-workspace.js';
import { raceSignal } from './race-signal.js';
import type { SandboxEndpoint } from './sandbox-endpoint.js';
import { sandboxError } from './sandbox-error.js';
import type {
  ReleaseSandboxOptions,
  SandboxHookOptions,
  SandboxLogsOptions,
} from './sandbox-hooks.js';
import { isSandboxGone, type SandboxState } from './sandbox-state.js';
import {
  type ResolvedSandboxWorkspaceOptions,
  resolveSandboxWorkspaceOptions,
  type SandboxWorkspaceOptions,
} from './sandbox-workspace-options.js';
import { waitUntilAlive } from './wait-until-alive.js';

/** How long reading a sandbox's state or logs for an error message may take. */
const DIAGNOSE_TIMEOUT_MS = 5_000;
/** Longest log excerpt put into an error, in characters (the tail is kept). */
const MAX_LOG_CHARS = 8_000;

/** Options of {@link SandboxWorkspace.start}. */
export interface StartSandboxWorkspaceOptions {
  /** Aborting releases what was created and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/**
 * Where a {@link SandboxWorkspace} is: `new`, `starting`, `ready`, `pausing`, `paused`,
 * `resuming`, `exited` (the sandbox died while in use), `failed` (start failed) or `closed`.
 */
export type SandboxWorkspaceStatus =
  | 'new'
  | 'starting'
  | 'ready'
  | 'pausing'
  | 'paused'
  | 'resuming'
  | 'exited'
  | 'failed'
  | 'closed';

type Diagnosis = { state?: SandboxState | undefined; logs?: string | undefined };

/**
 * The lifecycle every provisioned workspace shares (Docker, Runtime API, cloud providers): a
 * sandbox running an agent-server, used through an inner {@link RemoteWorkspace}.
 *
 * - `start()`: `createSandbox()` → `startSandbox()` (gives host and key) → poll `/health` until
 *   it answers, all within `startupTimeoutMs`. A sandbox that dies or never answers gives a
 *   `PROVISIONING_ERROR` carrying its state and last log lines, and whatever was created is
 *   released. Operations called before `start()` start the workspace first.
 * - `close()` releases exactly what `start()` made, once, within about `lifecycleTimeoutMs`;
 *   it is safe during `start()`, after a failed start and after the sandbox crashed.
 * - `pause()` / `resume()` call the sandbox hooks; `resume()` waits until alive again. While
 *   paused every operation rejects at once with `WORKSPACE_PAUSED`.
 * - A `CONNECTION_ERROR` during use is checked against the sandbox: when it has exited or
 *   vanished, that and every later operation reject with `SANDBOX_EXITED` (exit code and last
 *   logs in `details`).
 *
 * Subclasses implement the protected hooks; the template owns ordering, timeouts and errors.
 */
export abstract class SandboxWorkspace extends BaseWorkspace {
  readonly #startupTimeoutMs: number;
  readonly #lifecycleTimeoutMs: number;
  readonly #logTailLines: number;
  readonly #remoteOptions: ResolvedSandboxWorkspaceOptions['remote'];
  /** Aborted by `close()`, with a `WORKSPACE_CLOSED` reason. */
  readonly #closing = new AbortController();
  #status: SandboxWorkspaceStatus = 'new';
  #starting: Promise<void> | undefined;
  #remote: RemoteWorkspace | undefined;
  #endpoint: SandboxEndpoint | undefined;
  /** Set once `createSandbox()` was entered: from then on release must run. */
  #created = false;
  /** The create/start hook in flight; release waits for it before it runs. */
  #pendingHook: Promise<unknown> | undefined;
  #releasing: Promise<void> | undefined;
  #releaseReason: ReleaseSandboxOptions['reason'] | undefined;
  /** The `SANDBOX_EXITED` error, once the sandbox was found dead. */
  #exited: WorkspaceError | undefined;
  /** Serialises pause and resume. */
  #transition: Promise<unknown> = Promise.resolve();

  constructor(options: SandboxWorkspaceOptions) {
    super({ workingDir: options.workingDir });
    const resolved = resolveSandboxWorkspaceOptions(options);
    this.#startupTimeoutMs = resolved.startupTimeoutMs;
    this.#lifecycleTimeoutMs = resolved.lifecycleTimeoutMs;
    this.#logTailLines = resolved.logTailLines;
    this.#remoteOptions = resolved.remote;
  }

  /** Where the workspace is in its lifecycle. */
  get status(): SandboxWorkspaceStatus {
    return this.#status;
  }

  /** Base URL of the sandbox's agent-server, once started. */
  get host(): string | undefined {
    return this.#endpoint?.host;
  }

  /**
   * Creates and starts the sandbox and waits until its agent-server answers. Repeated calls
   * share the first call's outcome (and signal). On failure everything created is released and
   * the workspace stays unusable: `PROVISIONING_ERROR` (with state and logs), `ABORTED`,
   * `WORKSPACE_CLOSED`, or a hook's own `WorkspaceError` (e.g. `CONNECTION_ERROR`).
   */
  async start(options: StartSandboxWorkspaceOptions = {}): Promise<void> {
    this.assertOpen();
    this.#starting ??= this.#start(options.signal);
    return this.#starting;
  }

  /** True when started, not paused, and the agent-server answers `/health`; never throws for that. */
  async alive(): Promise<boolean> {
    this.assertOpen();
    if (this.#status !== 'ready' || !this.#remote) return false;
    return this.#remote.alive();
  }

  /** Fetches the agent-server's `GET /server_info`. */
  async serverInfo(): Promise<ServerInfo> {
    this.assertOpen();
    return this.#use((remote) => remote.serverInfo());
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

  /** Resumes the suspended sandbox; the default rejects with `NOT_SUPPORTED`. */
  protected async resumeSandbox(_options: SandboxHookOptions): Promise<void> {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: `${this.kind} workspaces cannot be resumed`,
    });
  }

  protected runCommand(request: CommandRequest): Promise<CommandResult> {
    const { command, signal, ...options } = request;
    return this.#use((remote) => remote.executeCommand(command, { ...options, signal }), signal);
  }

  protected runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return this.#use((remote) => remote.fileUpload(sourcePath, destinationPath));
  }

  protected runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    return this.#use((remote) => remote.fileDownload(sourcePath, destinationPath));
  }

  protected runGitChanges(repositoryPath: string): Promise<GitChange[]> {
    return this.#use((remote) => remote.gitChanges(repositoryPath));
  }

  protected runGitDiff(filePath: string): Promise<GitDiff> {
    return this.#use((remote) => remote.gitDiff(filePath));
  }

  protected override runPause(): Promise<void> {
    return this.#serialize(async () => {
      if (this.#status === 'paused') return;
      await this.#usable();
      this.#setStatus('pausing');
      const signal = this.#stepSignal(this.#lifecycleTimeoutMs);
      try {
        await raceSignal(this.pauseSandbox({ signal }), signal);
        this.#setStatus('paused');
      } catch (error) {
        this.#setStatus('ready');
        throw await this.#hookFailure(error, signal, 'pausing');
      }
    });
  }

  protected override runResume(): Promise<void> {
    return this.#serialize(async () => {
      if (this.#status !== 'paused') {
        await this.#usable();
        return;
      }
      this.#setStatus('resuming');
      const signal = this.#stepSignal(this.#lifecycleTimeoutMs);
      try {
        await raceSignal(this.resumeSandbox({ signal }), signal);
      } catch (error) {
        this.#setStatus('paused');
        throw await this.#hookFailure(error, signal, 'resuming');
      }
      // The sandbox runs again; whatever happens next, operations may try it.
      const deadline = this.#stepSignal(this.#startupTimeoutMs);
      let outcome: Awaited<ReturnType<typeof waitUntilAlive>>;
      try {
        outcome = await this.#waitUntilAlive(deadline);
      } catch (error) {
        this.#setStatus('ready');
        if (this.#closing.signal.aborted) throw this.#closing.signal.reason;
        throw sandboxError({
          code: 'PROVISIONING_ERROR',
          message: `the ${this.kind} sandbox's agent-server did not answer within ${this.#startupTimeoutMs} ms (startupTimeoutMs) after resume`,
          ...(await this.#diagnose()),
          cause: error,
        });
      }
      if (!outcome.alive) throw await this.#markExited(outcome.state, undefined);
      this.#setStatus('ready');
    });
  }

  protected async runClose(): Promise<void> {
    this.#closing.abort(
      new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: `the ${this.kind} workspace was closed`,
      }),
    );
    this.#status = 'closed';
    // In-flight operations end now with WORKSPACE_CLOSED.
    void this.#remote?.close();
    await this.#starting?.catch(() => {});
    const remoteClosed = this.#remote?.close() ?? Promise.resolve();
    try {
      await this.#release('close');
    } finally {
      const bound = AbortSignal.timeout(this.#lifecycleTimeoutMs);
      await raceSignal(remoteClosed, bound).catch(() => {});
    }
  }

  async #start(userSignal: AbortSignal | undefined): Promise<void> {
    const deadline = AbortSignal.timeout(this.#startupTimeoutMs);
    const signal = AbortSignal.any([
      deadline,
      this.#closing.signal,
      ...(userSignal ? [userSignal] : []),
    ]);
    this.#setStatus('starting');
    let step = 'creating the sandbox';
    let failure: unknown;
    try {
      this.#created = true;
      await this.#hook(this.createSandbox({ signal }), signal);
      step = 'starting the sandbox';
      const endpoint = await this.#hook(this.startSandbox({ signal }), signal);
      this.#endpoint = endpoint;
      this.#remote = new RemoteWorkspace({
        ...this.#remoteOptions,
        host: endpoint.host,
        apiKey: endpoint.apiKey,
        workingDir: this.workingDir,
      });
      step = 'waiting for its agent-server to answer /health';
      const outcome = await this.#waitUntilAlive(signal);
      if (outcome.alive) {
        this.#setStatus('ready');
        return;
      }
      failure = await this.#diedDuringStart(outcome.state, undefined);
    } catch (error) {
      failure = await this.#startFailure(error, { step, deadline, userSignal });
    }
    this.#setStatus('failed');
    const remoteClosed = this.#remote?.close();
    // The start failure is what the caller needs; a failed release is reported by close().
    await this.#release('failed-start').catch(() => {});
    await remoteClosed?.catch(() => {});
    throw failure;
  }

  /** Turns what interrupted `start()` into the error it rejects with. */
  async #startFailure(
    error: unknown,
    context: { step: string; deadline: AbortSignal; userSignal: AbortSignal | undefined },
  ): Promise<unknown> {
    if (this.#closing.signal.aborted) return this.#closing.signal.reason;
    if (context.userSignal?.aborted) return abortedError(context.userSignal);
    if (context.deadline.aborted) {
      return sandboxError({
        code: 'PROVISIONING_ERROR',
        message: `the ${this.kind} sandbox was not ready within ${this.#startupTimeoutMs} ms (startupTimeoutMs) while ${context.step}`,
        ...(await this.#diagnose()),
        cause: error,
        details: { step: context.step, startupTimeoutMs: this.#startupTimeoutMs },
      });
    }
    // Provider errors (engine unreachable, bad config, ...) explain themselves.
    if (WorkspaceError.isInstance(error) && error.code !== 'PROVISIONING_ERROR') return error;
    if (context.step === 'creating the sandbox') {
      return WorkspaceError.isInstance(error)
        ? error
        : sandboxError({
            code: 'PROVISIONING_ERROR',
            message: `creating the ${this.kind} sandbox failed: ${messageOf(error)}`,
            cause: error,
          });
    }
    const diagnosis = await this.#diagnose();
    if (diagnosis.state && isSandboxGone(diagnosis.state)) {
      return this.#diedDuringStart(diagnosis.state, diagnosis.logs, error);
    }
    if (WorkspaceError.isInstance(error)) return error;
    return sandboxError({
      code: 'PROVISIONING_ERROR',
      message: `${context.step} failed: ${messageOf(error)}`,
      ...diagnosis,
      cause: error,
      details: { step: context.step },
    });
  }

  /** The `PROVISIONING_ERROR` of a sandbox that died before its agent-server answered. */
  async #diedDuringStart(
    state: SandboxState,
    logs: string | undefined,
    cause?: unknown,
  ): Promise<WorkspaceError> {
    return sandboxError({
      code: 'PROVISIONING_ERROR',
      message: `the ${this.kind} sandbox stopped before its agent-server became alive`,
      state,
      logs: logs ?? (await this.#readLogs()),
      cause,
    });
  }

  /**
   * Releases what `start()` created, bounded by `lifecycleTimeoutMs`; once when it succeeds (a
   * failed release is tried again by the next call, e.g. `close()` after a failed start).
   */
  #release(reason: ReleaseSandboxOptions['reason']): Promise<void> {
    // A retry keeps the first reason: a failed start is always released.
    this.#releaseReason ??= reason;
    this.#releasing ??= this.#releaseOnce(this.#releaseReason).catch((error: unknown) => {
      this.#releasing = undefined;
      throw error;
    });
    return this.#releasing;
  }

  async #releaseOnce(reason: ReleaseSandboxOptions['reason']): Promise<void> {
    const signal = AbortSignal.timeout(this.#lifecycleTimeoutMs);
    // A create or start that raced an abort may still be making something.
    await raceSignal(this.#pendingHook ?? Promise.resolve(), signal).catch(() => {});
    if (!this.#created) return;
    try {
      await raceSignal(this.releaseSandbox({ signal, reason }), signal);
    } catch (error) {
      throw await this.#hookFailure(error, signal, 'releasing');
    }
  }

  /** The error of a failed pause, resume or release step. */
  async #hookFailure(error: unknown, signal: AbortSignal, step: string): Promise<unknown> {
    if (this.#closing.signal.aborted && step !== 'releasing') return this.#closing.signal.reason;
    if (WorkspaceError.isInstance(error, 'NOT_SUPPORTED')) return error;
    if (step !== 'releasing') {
      const state = await this.#readState();
      if (state && isSandboxGone(state)) return this.#markExited(state, error);
    }
    if (WorkspaceError.isInstance(error)) return error;
    const reason = signal.aborted
      ? `it took longer than ${this.#lifecycleTimeoutMs} ms (lifecycleTimeoutMs)`
      : messageOf(error);
    return new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `${step} the ${this.kind} sandbox failed: ${reason}`,
      cause: error,
    });
  }

  /** Runs an operation on the inner client, explaining a transport failure by the sandbox's fate. */
  async #use<T>(
    operation: (remote: RemoteWorkspace) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const remote = await this.#usable(signal);
    try {
      return await operation(remote);
    } catch (error) {
      if (this.closed || !WorkspaceError.isInstance(error, 'CONNECTION_ERROR')) throw error;
      if (this.#exited) throw this.#exited;
      const state = await this.#readState();
      if (state && isSandboxGone(state)) throw await this.#markExited(state, error);
      throw error;
    }
  }

  /** The inner client, once started; rejects at once while paused or after the sandbox died. */
  async #usable(signal?: AbortSignal): Promise<RemoteWorkspace> {
    this.#assertRunning();
    if (this.#status !== 'ready') {
      try {
        await raceSignal(this.start(), signal);
      } catch (error) {
        throw signal?.aborted ? abortedError(signal) : error;
      }
      this.#assertRunning();
    }
    return this.#remote!;
  }

  #assertRunning(): void {
    this.assertOpen();
    if (this.#exited) throw this.#exited;
    const status = this.#status;
    if (status === 'pausing' || status === 'paused' || status === 'resuming') {
      throw new WorkspaceError({
        code: 'WORKSPACE_PAUSED',
        message: `this ${this.kind} workspace is paused: call resume() first`,
      });
    }
  }

  /** Records that the sandbox died while in use; every later operation gets the same error. */
  async #markExited(state: SandboxState, cause: unknown): Promise<WorkspaceError> {
    this.#exited ??= sandboxError({
      code: 'SANDBOX_EXITED',
      message: `the ${this.kind} sandbox stopped while the workspace was in use; close this workspace and create a new one`,
      state,
      logs: await this.#readLogs(),
      cause,
    });
    this.#setStatus('exited');
    return this.#exited;
  }

  #waitUntilAlive(signal: AbortSignal) {
    const remote = this.#remote!;
    return waitUntilAlive({
      probe: () => remote.alive().catch(() => false),
      state: (stepSignal) => this.sandboxState({ signal: stepSignal }),
      signal,
    });
  }

  async #diagnose(): Promise<Diagnosis> {
    const [state, logs] = await Promise.all([this.#readState(), this.#readLogs()]);
    return { state, logs };
  }

  /** The sandbox's state, or undefined when it cannot be read in time. */
  async #readState(): Promise<SandboxState | undefined> {
    const signal = AbortSignal.timeout(DIAGNOSE_TIMEOUT_MS);
    return raceSignal(this.sandboxState({ signal }), signal).catch(() => undefined);
  }

  /** The sandbox's last log lines, or undefined when they cannot be read in time. */
  async #readLogs(): Promise<string | undefined> {
    const signal = AbortSignal.timeout(DIAGNOSE_TIMEOUT_MS);
    try {
      const logs = await raceSignal(
        this.sandboxLogs({ signal, tailLines: this.#logTailLines }),
        signal,
      );
      return logs.length > MAX_LOG_CHARS ? `…${logs.slice(-MAX_LOG_CHARS)}` : logs;
    } catch {
      return undefined;
    }
  }

  /** Remembers a create/start hook call so release can wait for it, and races it. */
  #hook<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
    this.#pendingHook = work.catch(() => {});
    return raceSignal(work, signal);
  }

  /** A signal for one step: its timeout or `close()`. */
  #stepSignal(timeoutMs: number): AbortSignal {
    return AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#closing.signal]);
  }

  #serialize(step: () => Promise<void>): Promise<void> {
    const run = this.#transition.then(step, step);
    this.#transition = run.catch(() => {});
    return run;
  }

  /** Moves to `status`, except out of `closed` and `exited`, which are final. */
  #setStatus(status: SandboxWorkspaceStatus): void {
    if (this.#status !== 'closed' && this.#status !== 'exited') this.#status = status;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
