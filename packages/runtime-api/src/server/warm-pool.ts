import { timeoutSignal } from '@agent-workspace/core/internal';
import type { ContainerSandbox } from '@agent-workspace/docker/engine';
import type { StartRuntimeRequestWire } from '@agent-workspace/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type {
  BackendSession,
  RuntimeBackend,
  SessionResources,
  WarmSandboxBackend,
} from '../backend/runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { awaitWarmSandbox } from './await-warm-sandbox.js';
import { claimWarmSandbox } from './claim-warm-sandbox.js';
import {
  createImagePool,
  type ImagePool,
  imagePoolStats,
  noteRefillFailure,
  type WarmPoolImageStats,
} from './image-pool.js';
import { ENGINE_CALL_TIMEOUT_MS } from './runtime-api-context.js';
import { deriveSandboxKey } from './session-key.js';
import type { WarmPoolEntry } from './warm-pool-options.js';
import { warmPoolServes } from './warm-pool-serves.js';
import { warmSandboxSpec } from './warm-sandbox-spec.js';

/** Seconds between two looks at the engine's warm sandboxes (gone ones replaced, strays removed). */
export const WARM_POOL_CHECK_INTERVAL_MS = 30_000;
/** Bound on removing the warm sandboxes when the server closes. */
const CLOSE_CLEANUP_TIMEOUT_MS = 30_000;

/** Options of {@link WarmPool}. */
export interface WarmPoolOptions {
  /** Where the sandboxes run (a claimed sandbox that died is stopped as a session). */
  backend: RuntimeBackend;
  /** The backend's warm side (`backend.warmSandboxes`). */
  sandboxes: WarmSandboxBackend;
  entries: readonly WarmPoolEntry[];
  sessionKeySecret: string;
  /** Base limits of a sandbox (a pool sandbox has `resource_factor` 1). */
  resources: SessionResources;
  /** The operator's command sandbox and allow-list, which every warm sandbox starts with. */
  sandbox?: ContainerSandbox | undefined;
  /** Longest one agent-server probe may take, in milliseconds. */
  probeTimeoutMs: number;
  log: FastifyBaseLogger;
}

/**
 * The server's warm pools: per configured image, `count` sandboxes started dormant
 * (`--defer-init`) and ready (their agent-server accepts their init key and is `dormant`) before
 * any session asks. A matching `/start` ({@link warmPoolServes}) claims one
 * (`WarmSandboxBackend.claimWarm`: bound to the session in the engine, durably), then gives it
 * the session's key (`POST /api/init`; a sandbox refusing goes and the start is cold) instead of
 * starting a sandbox, and the pool refills in the background;
 * failed refills are logged and retried with a doubling backoff. The engine is the record: at
 * start and every {@link WARM_POOL_CHECK_INTERVAL_MS} the pool lists the warm sandboxes,
 * adopting those a restarted server left that fit a pool (same settings, key accepted) and
 * removing the rest. `close()` removes every unclaimed one.
 */
export class WarmPool implements AsyncDisposable {
  readonly #options: WarmPoolOptions;
  readonly #sandboxes: WarmSandboxBackend;
  readonly #pools = new Map<string, ImagePool>();
  readonly #claiming = new Set<string>();
  readonly #claims = new Set<Promise<unknown>>();
  readonly #work = new Set<Promise<unknown>>();
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  /** Starts nothing until {@link start}. */
  constructor(options: WarmPoolOptions) {
    this.#options = options;
    this.#sandboxes = options.sandboxes;
    for (const entry of options.entries) {
      this.#pools.set(entry.image, createImagePool(entry, options.resources, options.sandbox));
    }
  }

  /** Adopts or removes what the engine holds, then fills the pools; checks them periodically. */
  start(): void {
    const check = () => this.#track(this.#reconcile().finally(() => this.#refill()));
    check();
    this.#timer = setInterval(check, WARM_POOL_CHECK_INTERVAL_MS);
    this.#timer.unref();
  }

  /**
   * Claims a ready sandbox for `sessionId` when a pool serves `body`, answering the claimed
   * session; `undefined` (synchronously) when none can (no pool, a request it does not serve, an
   * empty pool, closing). `ALREADY_EXISTS` when the session id is taken (the sandbox stays
   * warm). A sandbox the engine lost, that died or that refused init is removed and `cold()`
   * answers instead.
   */
  claim(
    sessionId: string,
    body: StartRuntimeRequestWire,
    cold: () => Promise<BackendSession>,
    signal: AbortSignal,
  ): Promise<BackendSession> | undefined {
    if (this.#closing) return undefined;
    const pool = this.#pools.get(body.image);
    if (!pool || !warmPoolServes(pool.entry, body)) return undefined;
    const runtimeId = pool.ready.shift();
    if (runtimeId === undefined) return undefined;
    this.#claiming.add(runtimeId);
    const { backend, sessionKeySecret, probeTimeoutMs, log } = this.#options;
    const claimed = claimWarmSandbox({
      sandboxes: this.#sandboxes,
      backend,
      pool,
      runtimeId,
      sessionId,
      sessionKeySecret,
      probeTimeoutMs,
      log,
      remove: (id, removeSignal) => this.#remove(id, removeSignal),
      cold,
      signal,
    }).finally(() => {
      this.#claiming.delete(runtimeId);
      this.#claims.delete(claimed);
    });
    this.#claims.add(claimed);
    this.#refill();
    return claimed;
  }

  /** True while a claim of this pool is binding or initializing the sandbox `runtimeId`. */
  isClaiming(runtimeId: string): boolean {
    return this.#claiming.has(runtimeId);
  }

  /** Each pool's numbers, in configuration order. */
  stats(): WarmPoolImageStats[] {
    return [...this.#pools.values()].map(imagePoolStats);
  }

  /**
   * Stops refilling, lets claims and engine calls in flight finish (readiness waits end at
   * once), and removes every unclaimed warm sandbox of the namespace (bounded); idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#timer);
      for (const pool of this.#pools.values()) clearTimeout(pool.retryTimer);
      await Promise.allSettled([...this.#claims]);
      this.#abort.abort();
      await Promise.allSettled([...this.#work]);
      const signal = AbortSignal.timeout(CLOSE_CLEANUP_TIMEOUT_MS);
      const left = await this.#sandboxes.listWarm({ signal }).catch((error: unknown) => {
        this.#options.log.warn({ err: error }, 'could not list the warm sandboxes to remove');
        return [];
      });
      await Promise.all(
        left.map((sandbox) => this.#remove(sandbox.labels[RUNTIME_LABELS.runtimeId] ?? '', signal)),
      );
    })();
    return this.#closing;
  }

  /** {@link close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Starts sandboxes until each pool not backing off holds its count (ready or starting). */
  #refill(): void {
    if (this.#closing) return;
    for (const pool of this.#pools.values()) {
      if (Date.now() < pool.retryAt) continue;
      while (pool.ready.length + pool.starting.size < pool.entry.count) {
        this.#track(this.#startOne(pool));
      }
    }
  }

  async #startOne(pool: ImagePool): Promise<void> {
    const { spec, key } = warmSandboxSpec({
      entry: pool.entry,
      namespace: this.#options.backend.namespace,
      sessionKeySecret: this.#options.sessionKeySecret,
      resources: this.#options.resources,
      sandbox: this.#options.sandbox,
    });
    const { runtimeId } = spec;
    pool.starting.add(runtimeId);
    try {
      // Not cut short by close(): an aborted create may still complete in the engine after the
      // abort, unseen by the clean-up; a finished one is removed by name below.
      const timeout = AbortSignal.timeout(ENGINE_CALL_TIMEOUT_MS);
      const sandbox = await this.#sandboxes.startWarm(spec, { signal: timeout });
      await this.#untilReady(sandbox, key);
      pool.ready.push(runtimeId);
      pool.failuresInARow = 0;
    } catch (error) {
      await this.#remove(runtimeId, AbortSignal.timeout(ENGINE_CALL_TIMEOUT_MS));
      if (!this.#closing) this.#failed(pool, error);
    } finally {
      pool.starting.delete(runtimeId);
      this.#refill();
    }
  }

  /** Waits until `sandbox`'s agent-server accepts `key`. */
  async #untilReady(sandbox: BackendSession, key: string): Promise<void> {
    if (!sandbox.url || sandbox.engineState !== 'running') {
      throw new Error(sandbox.message ?? 'the warm sandbox is not running');
    }
    await awaitWarmSandbox(sandbox.url, key, {
      probeTimeoutMs: this.#options.probeTimeoutMs,
      signal: this.#abort.signal,
    });
  }

  /** Counts and logs a failed refill; the pool retries after a doubling backoff. */
  #failed(pool: ImagePool, error: unknown): void {
    const retryInMs = noteRefillFailure(pool, error);
    clearTimeout(pool.retryTimer);
    pool.retryTimer = setTimeout(() => this.#refill(), retryInMs);
    pool.retryTimer.unref();
    this.#options.log.warn(
      { image: pool.entry.image, failures: pool.failures, retryInMs, reason: pool.lastFailure },
      'starting a warm sandbox failed; retrying later',
    );
  }

  /**
   * Reads the engine's warm sandboxes: ready ones that are gone or stopped leave the pool;
   * unknown ones (left by an earlier server) are adopted when a pool with the same settings has
   * room and they run, else removed.
   */
  async #reconcile(): Promise<void> {
    const readyBefore = new Set([...this.#pools.values()].flatMap((pool) => pool.ready));
    let found: BackendSession[];
    try {
      found = await this.#sandboxes.listWarm({ signal: this.#callSignal() });
    } catch (error) {
      if (!this.#closing) this.#options.log.warn({ err: error }, 'listing warm sandboxes failed');
      return;
    }
    const alive = new Set<string>();
    for (const sandbox of found) {
      const runtimeId = sandbox.labels[RUNTIME_LABELS.runtimeId] ?? '';
      const running = sandbox.engineState === 'running' && sandbox.url !== undefined;
      if (running) alive.add(runtimeId);
      if (this.#holds(runtimeId)) continue;
      const pool = this.#pools.get(sandbox.labels[RUNTIME_LABELS.image] ?? '');
      // A sandbox of an earlier version (no deferred-init label) would get a key its session
      // could not derive again.
      const fits =
        pool?.settings === sandbox.labels[RUNTIME_LABELS.warmSettings] &&
        sandbox.labels[RUNTIME_LABELS.deferredInit] === 'true';
      if (pool && fits && running && pool.ready.length + pool.starting.size < pool.entry.count) {
        this.#track(this.#adopt(pool, sandbox, runtimeId));
      } else {
        this.#track(this.#remove(runtimeId, this.#callSignal()));
      }
    }
    for (const pool of this.#pools.values()) {
      const gone = pool.ready.filter((id) => readyBefore.has(id) && !alive.has(id));
      pool.ready = pool.ready.filter((id) => !gone.includes(id));
      for (const runtimeId of gone) this.#track(this.#remove(runtimeId, this.#callSignal()));
    }
  }

  async #adopt(pool: ImagePool, sandbox: BackendSession, runtimeId: string): Promise<void> {
    pool.starting.add(runtimeId);
    try {
      const nonce = sandbox.labels[RUNTIME_LABELS.keyNonce] ?? '';
      await this.#untilReady(
        sandbox,
        deriveSandboxKey(this.#options.sessionKeySecret, runtimeId, nonce),
      );
      pool.ready.push(runtimeId);
      this.#options.log.info({ image: pool.entry.image, runtimeId }, 'adopted a warm sandbox');
    } catch (error) {
      this.#options.log.warn(
        { runtimeId, reason: (error as Error).message },
        'removing a warm sandbox',
      );
      await this.#remove(runtimeId, AbortSignal.timeout(ENGINE_CALL_TIMEOUT_MS));
    } finally {
      pool.starting.delete(runtimeId);
      this.#refill();
    }
  }

  /** True for a sandbox this pool holds: ready, starting or being claimed. */
  #holds(runtimeId: string): boolean {
    if (this.#claiming.has(runtimeId)) return true;
    return [...this.#pools.values()].some(
      (pool) => pool.ready.includes(runtimeId) || pool.starting.has(runtimeId),
    );
  }

  /** Removes an unclaimed warm sandbox, logging (never throwing) a failure. */
  async #remove(runtimeId: string, signal: AbortSignal): Promise<void> {
    try {
      await this.#sandboxes.removeWarm(runtimeId, { signal });
    } catch (error) {
      this.#options.log.warn({ runtimeId, err: error }, 'removing a warm sandbox failed');
    }
  }

  #callSignal(): AbortSignal {
    return timeoutSignal({ timeoutMs: ENGINE_CALL_TIMEOUT_MS, signal: this.#abort.signal });
  }

  /** Keeps `work` until it settles, so `close()` can wait for it. */
  #track(work: Promise<void>): void {
    this.#work.add(work);
    const forget = () => this.#work.delete(work);
    work.then(forget, forget);
  }
}
