import type { Workspace } from '../workspace/workspace.js';

/** One workspace of a pool, wherever it is. */
export interface PoolMember<W extends Workspace> {
  workspace: W;
  /** `Date.now()` when it became idle last. */
  idleSince: number;
  /** True once `initialize` ran on it (by the pool's hook or its holder): it is never reused. */
  initialized?: boolean | undefined;
  /** While leased: cuts the holder off (used when `close()` stops waiting for the holder). */
  revoke?: (() => void) | undefined;
}

/** Options of {@link PoolMembers}. */
export interface PoolMembersOptions<W extends Workspace> {
  idleTtlMs: number;
  /** Idle members that never expire. */
  min: number;
  /** Called with each idle member taken out for being idle too long. */
  expire: (member: PoolMember<W>) => void;
  /** Called after expiry took members out. */
  changed: () => void;
}

/**
 * Where a pool's members are (idle, leased, being checked, reset or closed), the idle-TTL
 * timer, and waiting until a condition on them holds. Starts are the pool's own.
 */
export class PoolMembers<W extends Workspace> {
  /** Idle members; the most recently idle last. */
  readonly idle: PoolMember<W>[] = [];
  readonly leased = new Set<PoolMember<W>>();
  /** Closes in flight. */
  readonly closing = new Set<Promise<void>>();
  /** Members taken for an `acquire()` whose health check runs. */
  checking = 0;
  /** Released members whose reset runs. */
  resetting = 0;
  readonly #options: PoolMembersOptions<W>;
  readonly #listeners = new Set<() => void>();
  #expiryTimer: NodeJS.Timeout | undefined;
  #expiryStopped = false;

  constructor(options: PoolMembersOptions<W>) {
    this.#options = options;
  }

  /** Every member that holds a workspace (starts not included). */
  get count(): number {
    return this.idle.length + this.leased.size + this.checking + this.resetting + this.closing.size;
  }

  /** A member for a workspace just started. */
  newMember(workspace: W): PoolMember<W> {
    return { workspace, idleSince: Date.now() };
  }

  /** Takes the most recently idle member (the warmest), if any. */
  takeIdle(): PoolMember<W> | undefined {
    return this.idle.pop();
  }

  /** Makes `member` idle; `keepAge` keeps its idle time (it was only borrowed for a check). */
  returnIdle(member: PoolMember<W>, { keepAge }: { keepAge: boolean }): void {
    if (!keepAge) member.idleSince = Date.now();
    this.idle.push(member);
  }

  /** Takes `member` out of the idle set; false when it is not idle any more. */
  removeIdle(member: PoolMember<W>): boolean {
    const index = this.idle.indexOf(member);
    if (index < 0) return false;
    this.idle.splice(index, 1);
    return true;
  }

  /** Arms the timer of the oldest idle member beyond `min`. */
  scheduleExpiry(): void {
    const { min, idleTtlMs } = this.#options;
    if (this.#expiryStopped || this.#expiryTimer || this.idle.length <= min) return;
    const oldest = Math.min(...this.idle.map((member) => member.idleSince));
    this.#expiryTimer = setTimeout(
      () => {
        this.#expiryTimer = undefined;
        this.#expire();
      },
      Math.max(0, oldest + idleTtlMs - Date.now()),
    );
    this.#expiryTimer.unref();
  }

  /** Disarms the idle-TTL timer for good. */
  stopExpiry(): void {
    this.#expiryStopped = true;
    clearTimeout(this.#expiryTimer);
  }

  /** Resolves once `predicate` holds (checked at each {@link notify}), or after `timeoutMs`. */
  until(predicate: () => boolean, timeoutMs?: number): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        resolve();
      };
      const check = (): void => {
        if (predicate()) done();
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
      this.#listeners.add(check);
    });
  }

  /** Re-checks every {@link until} condition. */
  notify(): void {
    for (const check of [...this.#listeners]) check();
  }

  /** Closes the oldest idle members beyond `min` that were idle for `idleTtlMs`. */
  #expire(): void {
    if (this.#expiryStopped) return;
    const { min, idleTtlMs, expire, changed } = this.#options;
    const now = Date.now();
    const byAge = [...this.idle].sort((a, b) => a.idleSince - b.idleSince);
    let surplus = this.idle.length - min;
    for (const member of byAge) {
      if (surplus <= 0 || now - member.idleSince < idleTtlMs) break;
      this.removeIdle(member);
      expire(member);
      surplus--;
    }
    changed();
  }
}
