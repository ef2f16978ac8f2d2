import { timeoutSignal } from '../internal/timeout-signal.js';
import { raceSignal } from '../sandbox/race-signal.js';

/** Options of {@link runPoolHook}. */
export interface RunPoolHookOptions {
  /** The hook is abandoned (and its signal fires) after this many milliseconds. */
  timeoutMs: number;
  /** Fires when the pool closes (or the caller gives up). */
  signal?: AbortSignal | undefined;
}

/**
 * Runs a pool hook (`reset`, `healthCheck`) with a signal that fires at `timeoutMs` or with
 * `signal`, and settles no later than that: a hook that ignores its signal is abandoned.
 */
export function runPoolHook<T>(
  hook: (options: { signal: AbortSignal }) => Promise<T>,
  { timeoutMs, signal }: RunPoolHookOptions,
): Promise<T> {
  const combined = timeoutSignal({ timeoutMs, signal });
  let running: Promise<T>;
  try {
    running = Promise.resolve(hook({ signal: combined }));
  } catch (error) {
    running = Promise.reject(error);
  }
  return raceSignal(running, combined);
}
