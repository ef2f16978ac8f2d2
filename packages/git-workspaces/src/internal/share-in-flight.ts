import { abortedError } from '@agent-workspace/core';

// Running tasks by key; an entry is removed as soon as its task settles.
const running = new Map<string, Promise<unknown>>();

/**
 * Runs `task` unless a task of the same `key` is running, in which case the caller shares its
 * result: parallel creates ask git a read-only question (or fetch) once, not once each. Nothing
 * is cached after the task settles, so no answer is older than the first of the calls sharing
 * it. The shared task
 * never sees a caller's signal; `signal` only makes this caller stop waiting (`ABORTED`).
 */
export function shareInFlight<T>(
  key: string,
  task: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  let shared = running.get(key) as Promise<T> | undefined;
  if (!shared) {
    shared = task().finally(() => running.delete(key));
    running.set(key, shared);
  }
  return abortable(shared, signal);
}

/** `promise`, or `ABORTED` as soon as `signal` fires (the promise goes on for the others). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortedError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
