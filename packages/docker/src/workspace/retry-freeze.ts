import { setTimeout as sleep } from 'node:timers/promises';
import { engineMessage } from './docker-error.js';

/** Attempts {@link retryFreeze} makes while the runtime gives up freezing the container. */
export const FREEZE_ATTEMPTS = 4;
/** Wait before the next attempt, times the number of attempts made. */
const RETRY_DELAY_MS = 100;
/**
 * The runtime's answer when a container's cgroup did not freeze in time: runc gives up on a
 * cgroup v1 freezer still `FREEZING` (a race with processes starting in it, likelier under load),
 * or after 10 s on cgroup v2, and thaws the container again.
 */
const FREEZE_GAVE_UP = /unable to freeze|waiting for the cgroup to freeze/i;

/** Options of {@link retryFreeze}. */
export interface RetryFreezeOptions {
  /** Stops the waits between attempts. */
  signal?: AbortSignal | undefined;
}

/**
 * Runs an engine call that freezes a container (`docker pause`, `docker commit --pause`), again
 * (up to {@link FREEZE_ATTEMPTS} times, waiting 100, 200, 300 ms) while the engine answers that
 * the runtime could not freeze its processes. Any other failure, and the last one, is thrown as
 * the call threw it.
 */
export async function retryFreeze<T>(
  call: () => Promise<T>,
  { signal }: RetryFreezeOptions = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= FREEZE_ATTEMPTS || !FREEZE_GAVE_UP.test(engineMessage(error))) throw error;
    }
    await sleep(RETRY_DELAY_MS * attempt, undefined, { signal });
  }
}
