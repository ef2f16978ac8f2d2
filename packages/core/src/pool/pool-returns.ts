import type { Workspace } from '../workspace/workspace.js';
import type { PoolMember, PoolMembers } from './pool-members.js';
import type { PoolRecord } from './pool-record.js';
import type { ReleasePooledWorkspaceOptions } from './pooled-workspace-lease.js';
import { runPoolHook } from './run-pool-hook.js';
import type { PoolDiscardReason } from './workspace-pool-event.js';
import type { PooledWorkspaceHook } from './workspace-pool-options.js';

/** Options of {@link PoolReturns}. */
export interface PoolReturnsOptions<W extends Workspace> {
  members: PoolMembers<W>;
  record: PoolRecord;
  reset: PooledWorkspaceHook<W> | undefined;
  resetTimeoutMs: number;
  /** The pool's close signal: resets stop, and whatever comes back is closed. */
  stop: AbortSignal;
  /** Called each time a close ends (room for a start). */
  changed: () => void;
}

/**
 * Where a pool's members go when they leave service: reset and back to idle, or closed (counted
 * in `closing` meanwhile), with the counters and events of each.
 */
export class PoolReturns<W extends Workspace> {
  readonly #options: PoolReturnsOptions<W>;

  constructor(options: PoolReturnsOptions<W>) {
    this.#options = options;
  }

  /**
   * Takes a released member back: dropped when its holder closed it; closed without a `reset`,
   * with `discard`, when the pool closes, or once initialized (a server initializes once);
   * otherwise reset and made idle (closed when the reset fails).
   */
  async giveBack(
    member: PoolMember<W>,
    closedByHolder: boolean,
    { discard }: ReleasePooledWorkspaceOptions,
  ): Promise<void> {
    const { reset, resetTimeoutMs, stop, members, record } = this.#options;
    if (closedByHolder) return this.discard(member, 'closed-by-holder');
    if (!reset || discard || stop.aborted || member.initialized) {
      return this.discard(member, stop.aborted ? 'pool-closed' : 'released');
    }
    members.resetting++;
    let ok = false;
    try {
      await runPoolHook(({ signal }) => reset(member.workspace, { signal }), {
        timeoutMs: resetTimeoutMs,
        signal: stop,
      });
      ok = true;
    } catch (error) {
      if (!stop.aborted) record.error(error, 'reset');
    } finally {
      members.resetting--;
    }
    if (!ok || stop.aborted) return this.discard(member, ok ? 'pool-closed' : 'reset-failed');
    members.returnIdle(member, { keepAge: false });
    record.counters.returned++;
    record.emit({ type: 'returned' });
  }

  /** Closes `member` (counted in `closing` meanwhile); never rejects. */
  discard(member: PoolMember<W>, reason: PoolDiscardReason): Promise<void> {
    const { members, record, changed } = this.#options;
    record.counters.discarded++;
    if (reason === 'dead') record.counters.dead++;
    if (reason === 'expired') record.counters.expired++;
    if (reason === 'initialize-failed') record.counters.initializeFailed++;
    record.emit({ type: 'discarded', reason });
    // A close() that throws at once must not escape into a timer or an acquire.
    const tracked = Promise.resolve()
      .then(() => member.workspace.close())
      .catch((error: unknown) => void record.error(error, 'close'))
      .finally(() => {
        members.closing.delete(tracked);
        changed();
      });
    members.closing.add(tracked);
    return tracked;
  }
}
