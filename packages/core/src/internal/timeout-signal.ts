import { MAX_TIMER_MS } from './max-timer-ms.js';

/** Options of {@link timeoutSignal}. */
export interface TimeoutSignalOptions {
  /** Milliseconds until the signal aborts with a `TimeoutError` (clamped to `MAX_TIMER_MS`). */
  timeoutMs: number;
  /** Aborts the signal earlier, with its reason (the server closing). */
  signal?: AbortSignal | undefined;
  /** More signals that abort it earlier, like `signal` (`undefined` entries are skipped). */
  signals?: ReadonlyArray<AbortSignal | undefined> | undefined;
}

/**
 * A signal that aborts after `timeoutMs` or when `signal` (or one of `signals`) does, with that
 * signal's reason. Use it wherever a deadline meets other signals, instead of `AbortSignal.any`
 * over `AbortSignal.timeout`: Node 20 lets a timeout signal inside a composite be garbage
 * collected before it fires (nodejs/node#57736), and the call it bounds then waits forever.
 * Here the timer holds its controller until it fires; the parents hold the result only weakly
 * (`AbortSignal.any`), so a finished call leaves no listener on a long-lived parent.
 */
export function timeoutSignal({
  timeoutMs,
  signal,
  signals = [],
}: TimeoutSignalOptions): AbortSignal {
  const parents = [signal, ...signals].filter((parent): parent is AbortSignal => !!parent);
  const aborted = parents.find((parent) => parent.aborted);
  if (aborted) return AbortSignal.abort(aborted.reason);
  const deadline = new AbortController();
  const timer = setTimeout(
    () => {
      deadline.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'));
    },
    Math.min(timeoutMs, MAX_TIMER_MS),
  );
  // Bounds a call; never keeps the process alive by itself.
  timer.unref();
  return parents.length === 0 ? deadline.signal : AbortSignal.any([deadline.signal, ...parents]);
}
