import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { Backoff } from '../internal/backoff.js';
import { bindAbstractSocket, closeAbstractSocket, leaseSocketNames } from './lease-socket.js';

/** Longest wait for a lease key's guard (held by others for milliseconds at a time). */
export const LEASE_GUARD_TIMEOUT_MS = 10_000;

/** Options of {@link withLeaseGuard}. */
export interface WithLeaseGuardOptions {
  leaseKey: string;
  signal?: AbortSignal | undefined;
  /** Give up after this long; default {@link LEASE_GUARD_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
}

/**
 * Runs `work` while holding the lease key's guard socket, which serialises every check-and-take
 * and release of its leases across the processes of this machine. A busy guard is tried again
 * with growing delays for up to `timeoutMs`; a holder that dies frees it at once.
 *
 * @throws WorkspaceError `RESOURCE_EXHAUSTED` when the guard stays busy, `ABORTED` on abort.
 */
export async function withLeaseGuard<T>(
  options: WithLeaseGuardOptions,
  work: () => Promise<T>,
): Promise<T> {
  const { leaseKey, signal, timeoutMs = LEASE_GUARD_TIMEOUT_MS } = options;
  const name = leaseSocketNames(leaseKey).guard;
  const deadline = Date.now() + timeoutMs;
  const delay = new Backoff({ initialMs: 2, maxMs: 50 });
  for (;;) {
    if (signal?.aborted) throw abortedError(signal);
    const guard = await bindAbstractSocket(name);
    if (guard !== undefined) {
      try {
        return await work();
      } finally {
        await closeAbstractSocket(guard);
      }
    }
    if (Date.now() >= deadline) {
      throw new WorkspaceError({
        code: 'RESOURCE_EXHAUSTED',
        message: `the lease guard ${leaseKey} stayed busy for ${timeoutMs} ms`,
        details: { leaseKey },
      });
    }
    try {
      await sleep(delay.next(), undefined, { signal });
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal);
      throw error;
    }
  }
}
