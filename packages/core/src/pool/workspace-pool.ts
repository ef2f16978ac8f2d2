import { abortedError } from '../errors/aborted-error.js';
import type { Workspace } from '../workspace/workspace.js';
import { probePoolMember } from './default-pool-health-check.js';
import {
  acquireInitializer,
  type HandOutOptions,
  initializePoolMember,
} from './initialize-pool-member.js';
import { asPoolError, poolClosedError } from './pool-errors.js';
import { type PoolMember, PoolMembers } from './pool-members.js';
import { PoolRecord } from './pool-record.js';
import { PoolReturns } from './pool-returns.js';
import { type PoolStartOutcome, PoolStarts } from './pool-starts.js';
import { PoolWaiters } from './pool-waiters.js';
import { createPooledWorkspaceLease, type PooledWorkspaceLease } from './pooled-workspace-lease.js';
import { RefillThrottle } from './refill-throttle.js';
import { resolveWorkspacePoolOptions } from './resolve-workspace-pool-options.js';
import type {
  AcquirePooledWorkspaceOptions,
  ResolvedWorkspacePoolOptions,
  WorkspacePoolOptions,
} from './workspace-pool-options.js';
import type { WorkspacePoolStats } from './workspace-pool-stats.js';

/** Re-exported: core's index takes it from here. */
export type { AcquirePooledWorkspaceOptions };

/**
 * A warm pool of started workspaces of one kind (see {@link createWorkspacePool}). Everything
 * it holds (idle, leased, starting, resetting and closing members) stays within `max`;
 * `close()` leaves none of them behind. No global state: any number of pools may coexist.
 */
export class WorkspacePool<W extends Workspace = Workspace> implements AsyncDisposable {
  readonly #options: ResolvedWorkspacePoolOptions<W>;
  readonly #members: PoolMembers<W>;
  readonly #waiters: PoolWaiters<PoolMember<W>>;
  readonly #starts: PoolStarts<W>;
  readonly #throttle: RefillThrottle;
  readonly #closeController = new AbortController();
  readonly #record: PoolRecord;
  readonly #returns: PoolReturns<W>;
  readonly #idleCheckTimer: NodeJS.Timeout;
  #idleChecking = false;
  #closing: Promise<void> | undefined;

  constructor(options: WorkspacePoolOptions<W>) {
    this.#options = resolveWorkspacePoolOptions(options);
    this.#record = new PoolRecord(this.#options.onEvent);
    const { maxWaiters, refillBackoff, idleTtlMs, min } = this.#options;
    this.#throttle = new RefillThrottle({ ...refillBackoff, retry: () => this.#dispatch() });
    this.#waiters = new PoolWaiters({ maxWaiters });
    this.#starts = new PoolStarts({
      ...this.#options,
      settled: (outcome) => this.#started(outcome),
    });
    this.#members = new PoolMembers<W>({
      ...{ idleTtlMs, min },
      expire: (member) => void this.#returns.discard(member, 'expired'),
      changed: () => this.#dispatch(),
    });
    this.#returns = new PoolReturns({
      ...this.#options,
      members: this.#members,
      record: this.#record,
      stop: this.#closeController.signal,
      changed: () => this.#dispatch(),
    });
    this.#idleCheckTimer = setInterval(
      () => void this.#checkIdle(),
      this.#options.idleCheckIntervalMs,
    );
    this.#idleCheckTimer.unref();
    this.#dispatch();
  }

  /**
   * Lends a ready workspace: a warm idle one at once (after a cheap health check; dead ones are
   * closed and skipped), else a new one when under `max`, else the first one released, in
   * FIFO order. With an `initialize` hook (the call's or the pool's), it runs next; a member
   * it fails on is closed. Rejects with `ABORTED` (signal), `RESOURCE_EXHAUSTED`
   * (`acquireTimeoutMs` passed, or `maxWaiters` wait already), `WORKSPACE_CLOSED` (the pool
   * closed), the error of the start made for this call (`PROVISIONING_ERROR`, ...), or that of
   * `initialize` (its own, or `PROVISIONING_ERROR` past `initializeTimeoutMs`).
   */
  async acquire(options: AcquirePooledWorkspaceOptions<W> = {}): Promise<PooledWorkspaceLease<W>> {
    const { signal } = options;
    const initialize = acquireInitializer(options.initialize, this.#options.initialize);
    if (this.#closing) throw poolClosedError(this.#options.label);
    if (signal?.aborted) throw abortedError(signal);
    const began = performance.now();
    const deadline = began + this.#options.acquireTimeoutMs;
    const describe = () => this.#describe();
    let front = false;
    for (;;) {
      // FIFO: take an idle member directly only when nobody waits ahead.
      let member = this.#waiters.length === 0 ? this.#members.takeIdle() : undefined;
      if (member) this.#members.checking++;
      else {
        const timeoutMs = Math.max(1, deadline - performance.now());
        member = await this.#waiters.wait({ timeoutMs, signal, front, describe }, () =>
          this.#dispatch(),
        );
      }
      // The member counts as `checking` until it is lent, returned or discarded.
      let alive: boolean;
      try {
        alive = await this.#probe(member, signal);
      } catch (error) {
        this.#members.checking--;
        if (this.#closing) void this.#returns.discard(member, 'pool-closed');
        else this.#members.returnIdle(member, { keepAge: true });
        this.#dispatch();
        throw error;
      }
      if (alive && !this.#closing) return this.#handOut(member, { began, initialize, signal });
      this.#members.checking--;
      if (this.#closing) {
        void this.#returns.discard(member, 'pool-closed');
        throw poolClosedError(this.#options.label);
      }
      void this.#returns.discard(member, 'dead');
      front = true;
      if (signal?.aborted) throw abortedError(signal);
    }
  }

  /** Counts, totals, the last background failure and recent acquire wait times. */
  stats(): WorkspacePoolStats {
    const members = this.#members;
    return {
      idle: members.idle.length,
      inUse: members.leased.size + members.checking,
      starting: this.#starts.size,
      resetting: members.resetting,
      closing: members.closing.size,
      waiting: this.#waiters.length,
      min: this.#options.min,
      max: this.#options.max,
      ...this.#record.counters,
      lastError: this.#record.lastError,
      acquireWaitMs: this.#record.waits.summary(),
      closed: this.#closing !== undefined,
    };
  }

  /**
   * Closes the pool: stops refills, rejects waiters with `WORKSPACE_CLOSED`, closes idle
   * members, aborts starts in flight (closing what they made), waits up to `drainTimeoutMs`
   * for holders to release and then closes the members still leased. Resolves once every
   * member is closed. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  /** Same as {@link WorkspacePool.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #shutdown(): Promise<void> {
    const closed = poolClosedError(this.#options.label);
    const members = this.#members;
    clearInterval(this.#idleCheckTimer);
    this.#throttle.stop();
    members.stopExpiry();
    this.#waiters.rejectAll(closed);
    this.#closeController.abort(closed);
    this.#starts.abortAll(closed);
    for (const member of members.idle.splice(0)) void this.#returns.discard(member, 'pool-closed');
    const drained = () => members.leased.size === 0 && members.checking === 0;
    await members.until(drained, this.#options.drainTimeoutMs);
    for (const member of [...members.leased]) {
      member.revoke?.();
      members.leased.delete(member);
      void this.#returns.discard(member, 'pool-closed');
    }
    await members.until(
      () =>
        drained() &&
        this.#starts.size === 0 &&
        members.resetting === 0 &&
        members.closing.size === 0,
    );
    this.#record.emit({ type: 'closed' });
  }

  /**
   * Runs `initialize` (if any) on a checked member (still counted `checking`), then lends it.
   * A member it fails on is closed (or, when the pool closed meanwhile, dropped as such).
   */
  async #handOut(
    member: PoolMember<W>,
    { began, initialize, signal }: HandOutOptions<W>,
  ): Promise<PooledWorkspaceLease<W>> {
    if (initialize) {
      const { initializeTimeoutMs: timeoutMs, label } = this.#options;
      const started = performance.now();
      // Set first: a server may be consumed by an initialize that then fails.
      member.initialized = true;
      try {
        const stop = this.#closeController.signal;
        await initializePoolMember(member.workspace, {
          initialize,
          timeoutMs,
          signal,
          stop,
          label,
        });
      } catch (error) {
        this.#members.checking--;
        if (this.#closing) void this.#returns.discard(member, 'pool-closed');
        else {
          this.#record.error(error, 'initialize');
          void this.#returns.discard(member, 'initialize-failed');
        }
        throw error;
      }
      this.#record.counters.initialized++;
      this.#record.emit({ type: 'initialized', initializeMs: performance.now() - started });
    }
    this.#members.checking--;
    if (this.#closing) {
      void this.#returns.discard(member, 'pool-closed');
      throw poolClosedError(this.#options.label);
    }
    return this.#lend(member, performance.now() - began);
  }

  #lend(member: PoolMember<W>, waitedMs: number): PooledWorkspaceLease<W> {
    const { lease, revoke } = createPooledWorkspaceLease({
      workspace: member.workspace,
      waitedMs,
      giveBack: ({ closedByHolder, initializedByHolder }, options) => {
        member.revoke = undefined;
        if (initializedByHolder) member.initialized = true;
        if (!this.#members.leased.delete(member)) return Promise.resolve();
        return this.#returns
          .giveBack(member, closedByHolder, options)
          .finally(() => this.#dispatch());
      },
    });
    member.revoke = revoke;
    this.#members.leased.add(member);
    this.#record.counters.acquired++;
    this.#record.waits.record(waitedMs);
    this.#record.emit({ type: 'acquired', waitedMs });
    this.#dispatch();
    return lease;
  }

  /** The health check: false when it fails or times out, `ABORTED` when `signal` fires. */
  #probe(member: PoolMember<W>, signal?: AbortSignal): Promise<boolean> {
    return probePoolMember(member.workspace, {
      healthCheck: this.#options.healthCheck,
      timeoutMs: this.#options.healthCheckTimeoutMs,
      signal,
      stop: this.#closeController.signal,
      onError: (error) => this.#record.error(error, 'health-check'),
    });
  }

  /** Checks every idle member in the background; dead ones are closed (and replaced). */
  async #checkIdle(): Promise<void> {
    if (this.#closing || this.#idleChecking) return;
    this.#idleChecking = true;
    try {
      await Promise.all(
        [...this.#members.idle].map(async (member) => {
          if (await this.#probe(member)) return;
          if (this.#members.removeIdle(member)) void this.#returns.discard(member, 'dead');
        }),
      );
    } finally {
      this.#idleChecking = false;
      this.#dispatch();
    }
  }

  /** Serves waiters from idle members, starts members for the rest, refills toward `min`. */
  #dispatch(): void {
    const members = this.#members;
    members.notify();
    if (this.#closing) return;
    while (this.#waiters.length > 0 && members.idle.length > 0) {
      members.checking++;
      this.#waiters.serveFirst(members.takeIdle()!);
    }
    const { max, min, refillConcurrency } = this.#options;
    const room = () => members.count + this.#starts.size < max;
    // Every start in flight will serve a waiter; start more only for the waiters beyond them.
    while (this.#waiters.length > this.#starts.size && room())
      this.#starts.begin({ refill: false });
    const short = () => members.idle.length + this.#starts.size - this.#waiters.length < min;
    if (short() && this.#throttle.allowed()) {
      while (short() && room() && this.#starts.refills < refillConcurrency) {
        this.#starts.begin({ refill: true });
      }
    }
    members.scheduleExpiry();
  }

  #started(outcome: PoolStartOutcome<W>): void {
    if (outcome.ok) {
      const member = this.#members.newMember(outcome.workspace);
      if (this.#closing) void this.#returns.discard(member, 'pool-closed');
      else {
        this.#record.counters.created++;
        this.#throttle.succeeded();
        this.#members.returnIdle(member, { keepAge: false });
        this.#record.emit({ type: 'started', startMs: outcome.startMs });
      }
    } else if (!this.#closing) {
      this.#record.counters.failedStarts++;
      const error = asPoolError(outcome.failure, `a start of the ${this.#options.label} failed`);
      const recorded = this.#record.error(error, 'start');
      const retryInMs = this.#throttle.failed();
      this.#record.emit({ type: 'start-failed', error: recorded, retryInMs });
      // The first waiter that no start in flight will serve gets this start's error.
      if (this.#waiters.length > this.#starts.size) this.#waiters.rejectFirst(error);
    }
    this.#dispatch();
  }

  #describe(): string {
    const { idle, inUse, starting, closing, max } = this.stats();
    return `${inUse} in use, ${idle} idle, ${starting} starting, ${closing} closing, max ${max}`;
  }
}

/**
 * Creates a {@link WorkspacePool}; it starts warming `min` members at once.
 *
 * @example
 * ```ts
 * await using pool = createWorkspacePool({ kind: 'docker', config: { image }, min: 2, max: 8 });
 * await using lease = await pool.acquire();
 * await lease.workspace.executeCommand('echo hi');
 * ```
 */
export function createWorkspacePool<W extends Workspace = Workspace>(
  options: WorkspacePoolOptions<W>,
): WorkspacePool<W> {
  return new WorkspacePool(options);
}
