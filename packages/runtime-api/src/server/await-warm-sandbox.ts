import { setTimeout as sleep } from 'node:timers/promises';
import { timeoutSignal } from '@agent-workspace/core/internal';
import { AGENT_SERVER_ROUTES, SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { type Dispatcher, request } from 'undici';

/** Longest a warm sandbox may take from started to ready, in milliseconds. */
export const WARM_READY_TIMEOUT_MS = 60_000;

/** Interval between two probes of a warm sandbox that is not ready yet. */
const WARM_READY_POLL_MS = 50;

/** Options of {@link awaitWarmSandbox}. */
export interface AwaitWarmSandboxOptions {
  /** Connection pool of the server. */
  dispatcher: Dispatcher;
  /** Longest one probe may take, in milliseconds. */
  probeTimeoutMs: number;
  /** Aborts the wait (the pool is closing). */
  signal: AbortSignal;
}

/**
 * Resolves once the agent-server at `url` answers `GET /server_info` with 200 to the sandbox's
 * key: it is up and accepts the key the claiming session will get. Rejects when it refuses the
 * key (401/403: made under another secret), after {@link WARM_READY_TIMEOUT_MS}, or when
 * `signal` fires. The error never holds the key.
 */
export async function awaitWarmSandbox(
  url: string,
  key: string,
  { dispatcher, probeTimeoutMs, signal }: AwaitWarmSandboxOptions,
): Promise<void> {
  const deadline = Date.now() + WARM_READY_TIMEOUT_MS;
  const target = `${url.replace(/\/+$/, '')}${AGENT_SERVER_ROUTES.serverInfo}`;
  for (;;) {
    signal.throwIfAborted();
    let status: number | undefined;
    try {
      const response = await request(target, {
        dispatcher,
        headers: { [SESSION_API_KEY_HEADER]: key },
        signal: timeoutSignal({ timeoutMs: probeTimeoutMs, signal }),
      });
      await response.body.dump();
      status = response.statusCode;
    } catch {
      // Not listening yet.
    }
    if (status === 200) return;
    if (status === 401 || status === 403) {
      throw new Error(`the agent-server refused the sandbox key (${status})`);
    }
    if (Date.now() > deadline) {
      throw new Error(`the agent-server was not ready within ${WARM_READY_TIMEOUT_MS} ms`);
    }
    await sleep(WARM_READY_POLL_MS, undefined, { signal });
  }
}
