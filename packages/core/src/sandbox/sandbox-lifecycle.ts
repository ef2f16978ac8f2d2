import { abortedError } from '../errors/aborted-error.js';
import { isTransportFailure } from '../errors/is-transport-failure.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { anySignal } from '../internal/any-signal.js';
import { timeoutSignal } from '../internal/timeout-signal.js';
import type { InitializeWorkspaceOptions } from '../remote/remote-init-options.js';
import { RemoteWorkspace } from '../remote/remote-workspace.js';
import type { WorkspaceCapabilities } from '../workspace/workspace-capabilities.js';
import { diagnoseSandbox, readSandboxLogs, readSandboxState } from './diagnose-sandbox.js';
import { raceSignal } from './race-signal.js';
import type { SandboxDriver } from './sandbox-driver.js';
import type { SandboxEndpoint } from './sandbox-endpoint.js';
import { lifecycleHookError, sandboxError, sandboxExitedError } from './sandbox-error.js';
import { SandboxReleaser } from './sandbox-releaser.js';
import { isSandboxGone, type SandboxState } from './sandbox-state.js';
import type { ResolvedSandboxWorkspaceOptions } from './sandbox-workspace-options.js';
import type { SandboxWorkspaceStatus } from './sandbox-workspace-status.js';
import { diedDuringStart, startFailure } from './start-failure.js';
import { waitUntilAlive } from './wait-until-alive.js';

/** The timing and client options {@link SandboxLifecycle} uses. */
export type SandboxLifecycleOptions = Pick<
  ResolvedSandboxWorkspaceOptions,
  'startupTimeoutMs' | 'lifecycleTimeoutMs' | 'remote'
>;

/**
 * The state machine behind `SandboxWorkspace`: starts, pauses, resumes and closes the sandbox
 * through the driver's hooks, owning ordering, timeouts and errors.
 */
export class SandboxLifecycle {
  readonly #driver: SandboxDriver;
  readonly #options: SandboxLifecycleOptions;
  readonly #releaser: SandboxReleaser;
  /** Aborted by `close()`, with a `WORKSPACE_CLOSED` reason. */
  readonly #closing = new AbortController();
  #status: SandboxWorkspaceStatus = 'new';
  #starting: Promise<void> | undefined;
  #remote: RemoteWorkspace | undefined;
  #endpoint: SandboxEndpoint | undefined;
  /** The session key `initialize()` switched to; it outlives a client made on resume. */
  #initializedKey: string | undefined;
  /** The `SANDBOX_EXITED` error, once the sandbox was found dead. */
  #exited: WorkspaceError | undefined;
  /** Serialises pause and resume. */
  #transition: Promise<unknown> = Promise.resolve();

  constructor(driver: SandboxDriver, options: SandboxLifecycleOptions) {
    this.#driver = driver;
    this.#options = options;
    this.#releaser = new SandboxReleaser({
      kind: () => driver.kind(),
      releaseSandbox: (hookOptions) => driver.releaseSandbox(hookOptions),
      lifecycleTimeoutMs: options.lifecycleTimeoutMs,
    });
  }

  /** Where the workspace is in its lifecycle. */
  get status(): SandboxWorkspaceStatus {
    return this.#status;
  }

  /** Base URL of the sandbox's agent-server, once started. */
  /** What the sandbox's agent-server client declares, once it has one. */
  get remoteCapabilities(): WorkspaceCapabilities | undefined {
    return this.#remote?.capabilities;
  }

  get host(): string | undefined {
    return this.#endpoint?.host;
  }

  /** Starts the sandbox once; repeated calls share the first call's outcome. */
  start(signal: AbortSignal | undefined): Promise<void> {
    this.#starting ??= this.#start(signal);
    return this.#starting;
  }

  /**
   * True when ready, the agent-server answers `/health` and the sandbox is not gone: a dead
   * sandbox's address may already serve another one's server (Docker gives a freed bridge
   * address or host port to the next container), whose `/health` answers too. A gone sandbox
   * is marked exited, so what follows fails with `SANDBOX_EXITED`.
   */
  async alive(): Promise<boolean> {
    if (this.#status !== 'ready' || !this.#remote) return false;
    const [answers, state] = await Promise.all([
      this.#remote.alive(),
      readSandboxState(this.#driver),
    ]);
    if (state && isSandboxGone(state)) {
      await this.#markExited(state, undefined);
      return false;
    }
    return answers;
  }

  /**
   * Runs an operation on the inner client, explaining a transport failure by the sandbox's fate.
   * Any transport failure counts, not only a refused connection: a dead sandbox's address may
   * already serve another sandbox's server, which refuses this one's key (401) or answers
   * something else.
   */
  async use<T>(
    operation: (remote: RemoteWorkspace) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const remote = await this.#usable(signal);
    try {
      return await operation(remote);
    } catch (error) {
      if (this.#driver.closed() || !isTransportFailure(error)) throw error;
      if (this.#exited) throw this.#exited;
      const state = await readSandboxState(this.#driver);
      if (state && isSandboxGone(state)) throw await this.#markExited(state, error);
      throw error;
    }
  }

  /** Initializes the dormant agent-server; its new key, if any, is kept for later clients. */
  async initialize(options: InitializeWorkspaceOptions): Promise<void> {
    await this.use((remote) => remote.initialize(options), options.signal);
    this.#initializedKey = options.sessionApiKeys?.[0] ?? this.#initializedKey;
  }

  /** Suspends the sandbox; a no-op when paused. */
  pause(): Promise<void> {
    return this.#serialize(async () => {
      if (this.#status === 'paused') return;
      await this.#usable();
      this.#setStatus('pausing');
      const signal = this.#stepSignal(this.#options.lifecycleTimeoutMs);
      try {
        await raceSignal(this.#driver.pauseSandbox({ signal }), signal);
        this.#setStatus('paused');
      } catch (error) {
        this.#setStatus('ready');
        throw await this.#hookFailure(error, signal, 'pausing');
      }
    });
  }

  /** Resumes the sandbox and waits until it is alive again. */
  resume(): Promise<void> {
    return this.#serialize(async () => {
      if (this.#status !== 'paused') {
        await this.#usable();
        return;
      }
      this.#setStatus('resuming');
      const signal = this.#stepSignal(this.#options.lifecycleTimeoutMs);
      let ready: Promise<unknown> | undefined;
      try {
        const endpoint = await raceSignal(this.#driver.resumeSandbox({ signal }), signal);
        if (endpoint) this.#connect(endpoint);
        ready = endpoint ? endpoint.ready : undefined;
      } catch (error) {
        this.#setStatus('paused');
        throw await this.#hookFailure(error, signal, 'resuming');
      }
      // The sandbox runs again; whatever happens next, operations may try it.
      const { startupTimeoutMs } = this.#options;
      const deadline = this.#stepSignal(startupTimeoutMs);
      let outcome: Awaited<ReturnType<typeof waitUntilAlive>>;
      try {
        outcome = await this.#waitUntilAlive(deadline, ready);
      } catch (error) {
        this.#setStatus('ready');
        if (this.#closing.signal.aborted) throw this.#closing.signal.reason;
        throw sandboxError({
          code: 'PROVISIONING_ERROR',
          message: `the ${this.#driver.kind()} sandbox's agent-server did not answer within ${startupTimeoutMs} ms (startupTimeoutMs) after resume`,
          ...(await diagnoseSandbox(this.#driver)),
          cause: error,
        });
      }
      if (!outcome.alive) throw await this.#markExited(outcome.state, undefined);
      this.#setStatus('ready');
    });
  }

  /** Ends in-flight operations with `WORKSPACE_CLOSED` and releases the sandbox. */
  async close(): Promise<void> {
    this.#closing.abort(
      new WorkspaceError({
        code: 'WORKSPACE_CLOSED',
        message: `the ${this.#driver.kind()} workspace was closed`,
      }),
    );
    this.#status = 'closed';
    // In-flight operations end now with WORKSPACE_CLOSED.
    void this.#remote?.close();
    await this.#starting?.catch(() => {});
    const remoteClosed = this.#remote?.close() ?? Promise.resolve();
    try {
      await this.#releaser.release('close');
    } finally {
      const bound = AbortSignal.timeout(this.#options.lifecycleTimeoutMs);
      await raceSignal(remoteClosed, bound).catch(() => {});
    }
  }

  async #start(userSignal: AbortSignal | undefined): Promise<void> {
    const { startupTimeoutMs } = this.#options;
    const deadline = timeoutSignal({ timeoutMs: startupTimeoutMs });
    const closing = this.#closing.signal;
    const signal = anySignal([deadline, closing, userSignal]);
    this.#setStatus('starting');
    let step = 'creating the sandbox';
    let failure: unknown;
    try {
      this.#releaser.markCreated();
      await this.#releaser.track(this.#driver.createSandbox({ signal }), signal);
      step = 'starting the sandbox';
      const endpoint = await this.#releaser.track(this.#driver.startSandbox({ signal }), signal);
      this.#connect(endpoint);
      step = 'waiting for its agent-server to answer /health';
      // Once the server says it listens, its capabilities and the exec socket are asked for
      // beside the /health probe, not after it; the `prepare()` below joins what is in flight.
      endpoint.ready?.then(
        () => this.#remote?.prepare(),
        () => {},
      );
      const outcome = await this.#waitUntilAlive(signal, endpoint.ready);
      if (outcome.alive) {
        // The server's capabilities (what the workspace declares) and the exec socket the first
        // command needs; never rejects.
        await this.#remote?.prepare();
        this.#setStatus('ready');
        return;
      }
      failure = await diedDuringStart(this.#driver, outcome.state, undefined);
    } catch (error) {
      failure = await startFailure(error, {
        probe: this.#driver,
        step,
        deadline,
        userSignal,
        closing,
        startupTimeoutMs,
      });
    }
    this.#setStatus('failed');
    const remoteClosed = this.#remote?.close();
    // The start failure is what the caller needs; a failed release is reported by close().
    await this.#releaser.release('failed-start').catch(() => {});
    await remoteClosed?.catch(() => {});
    throw failure;
  }

  /** Points the inner client at `endpoint`; a client of an earlier endpoint is closed. */
  #connect(endpoint: SandboxEndpoint): void {
    const previous = this.#endpoint;
    if (previous?.host === endpoint.host && previous.apiKey === endpoint.apiKey) return;
    void this.#remote?.close();
    this.#endpoint = endpoint;
    this.#remote = new RemoteWorkspace({
      ...this.#options.remote,
      host: endpoint.host,
      apiKey: this.#initializedKey ?? endpoint.apiKey,
      workingDir: this.#driver.workingDir,
    });
  }

  /** The error of a failed pause or resume step. */
  async #hookFailure(error: unknown, signal: AbortSignal, step: string): Promise<unknown> {
    if (this.#closing.signal.aborted) return this.#closing.signal.reason;
    if (WorkspaceError.isInstance(error, 'NOT_SUPPORTED')) return error;
    const state = await readSandboxState(this.#driver);
    if (state && isSandboxGone(state)) return this.#markExited(state, error);
    const { lifecycleTimeoutMs } = this.#options;
    return lifecycleHookError(error, {
      kind: this.#driver.kind(),
      step,
      signal,
      lifecycleTimeoutMs,
    });
  }

  /** The inner client, once started; rejects at once while paused or after the sandbox died. */
  async #usable(signal?: AbortSignal): Promise<RemoteWorkspace> {
    this.#assertRunning();
    if (this.#status !== 'ready') {
      try {
        this.#driver.assertOpen();
        await raceSignal(this.start(undefined), signal);
      } catch (error) {
        throw signal?.aborted ? abortedError(signal) : error;
      }
      this.#assertRunning();
    }
    return this.#remote!;
  }

  #assertRunning(): void {
    this.#driver.assertOpen();
    if (this.#exited) throw this.#exited;
    const status = this.#status;
    if (status === 'pausing' || status === 'paused' || status === 'resuming') {
      throw new WorkspaceError({
        code: 'WORKSPACE_PAUSED',
        message: `this ${this.#driver.kind()} workspace is paused: call resume() first`,
      });
    }
  }

  /** Records that the sandbox died while in use; every later operation gets the same error. */
  async #markExited(state: SandboxState, cause: unknown): Promise<WorkspaceError> {
    this.#exited ??= sandboxExitedError({
      kind: this.#driver.kind(),
      state,
      logs: await readSandboxLogs(this.#driver),
      cause,
    });
    this.#setStatus('exited');
    return this.#exited;
  }

  #waitUntilAlive(signal: AbortSignal, readyHint: Promise<unknown> | undefined) {
    const remote = this.#remote!;
    return waitUntilAlive({
      probe: () => remote.alive().catch(() => false),
      state: (stepSignal) => this.#driver.sandboxState({ signal: stepSignal }),
      signal,
      readyHint,
    });
  }

  /** A signal for one step: its timeout or `close()`. */
  #stepSignal(timeoutMs: number): AbortSignal {
    return timeoutSignal({ timeoutMs, signal: this.#closing.signal });
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
