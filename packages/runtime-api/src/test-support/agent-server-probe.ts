import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';

/** Options of {@link pollUntil}. */
export interface PollUntilOptions {
  /** Named in the timeout error. */
  what: string;
  /** @default 90000 */
  timeoutMs?: number;
  /** @default 250 */
  intervalMs?: number;
}

/** Calls `read` until `done` holds for its result, which it returns; throws after `timeoutMs`. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { what, timeoutMs = 90_000, intervalMs = 250 }: PollUntilOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves once `GET <url>/health` answers 200 (bounded). */
export async function waitUntilHealthy(url: string): Promise<void> {
  await pollUntil(
    () =>
      fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status,
        (error: Error) => error.message,
      ),
    (status) => status === 200,
    { what: `${url}/health to answer 200` },
  );
}

/** Status of an authenticated agent-server request made with `key`. */
export async function keyedStatus(url: string, key: string): Promise<number> {
  const response = await fetch(`${url}/api/bash/bash_events/search`, {
    headers: { [SESSION_API_KEY_HEADER]: key },
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  return response.status;
}
