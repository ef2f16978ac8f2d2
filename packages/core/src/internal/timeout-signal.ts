/** Options of {@link timeoutSignal}. */
export interface TimeoutSignalOptions {
  /** Milliseconds until the signal aborts with a `TimeoutError`. */
  timeoutMs: number;
  /** Aborts the signal earlier, with its reason (the server closing). */
  signal?: AbortSignal | undefined;
}

/**
 * A signal that aborts after `timeoutMs` or when `signal` does. Not `AbortSignal.any` over
 * `AbortSignal.timeout`: Node 20 lets a timeout signal inside a composite be garbage collected
 * before it fires (nodejs/node#57736), and the call it bounds then waits forever; here the
 * timer holds the signal until it fires or the signal aborts.
 */
export function timeoutSignal({ timeoutMs, signal }: TimeoutSignalOptions): AbortSignal {
  const controller = new AbortController();
  if (signal?.aborted) {
    controller.abort(signal.reason);
    return controller.signal;
  }
  const onAbort = () => controller.abort(signal?.reason);
  const timer = setTimeout(() => {
    controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  // Bounds a call; never keeps the process alive by itself.
  timer.unref();
  signal?.addEventListener('abort', onAbort, { once: true });
  controller.signal.addEventListener(
    'abort',
    () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
    { once: true },
  );
  return controller.signal;
}
