import { setTimeout as sleep } from 'node:timers/promises';
import { WorkspaceError } from '../errors/workspace-error.js';
import { Backoff } from '../internal/backoff.js';

/** Options of {@link retryWhenBusy}. */
export interface RetryWhenBusyOptions {
  /** Longest to keep trying, in milliseconds. */
  budgetMs: number;
  /** Stops the waiting (the last error is then thrown). */
  signal?: AbortSignal | undefined;
}

/**
 * Runs `attempt` again, after a growing pause (50 ms to 1 s), while it fails with
 * `RESOURCE_EXHAUSTED` (the server was busy and did nothing) and the budget allows another try,
 * as an HTTP client honours `429 Retry-After`. Any other outcome is returned or thrown as is.
 */
export async function retryWhenBusy<T>(
  attempt: () => Promise<T>,
  options: RetryWhenBusyOptions,
): Promise<T> {
  const deadline = Date.now() + options.budgetMs;
  const backoff = new Backoff({ initialMs: 50, maxMs: 1000 });
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      const delay = backoff.next();
      const retry =
        WorkspaceError.isInstance(error, 'RESOURCE_EXHAUSTED') &&
        Date.now() + delay < deadline &&
        !options.signal?.aborted;
      if (!retry) throw error;
      await sleep(delay, undefined, { signal: options.signal }).catch(() => {
        throw error;
      });
    }
  }
}
