import { setTimeout as sleep } from 'node:timers/promises';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import { probeStatus } from './probe-agent-server.js';
import { warmSandboxInitState } from './warm-sandbox-init.js';

/** Longest a warm sandbox may take from started to ready, in milliseconds. */
export const WARM_READY_TIMEOUT_MS = 60_000;

/** Interval between two probes of a warm sandbox that is not ready yet. */
const WARM_READY_POLL_MS = 50;

/** Options of {@link awaitWarmSandbox}. */
export interface AwaitWarmSandboxOptions {
  /** Longest one probe may take, in milliseconds. */
  probeTimeoutMs: number;
  /** Aborts the wait (the pool is closing). */
  signal: AbortSignal;
}

/**
 * Resolves once the agent-server at `url` answers `GET /server_info` with 200 to the sandbox's
 * key and `GET /api/init` with `dormant`: it is up, accepts the init key, and waits for the
 * claiming session's init. Rejects when it refuses the key (401/403: made under another
 * secret), is not dormant (initialized already, or started without `--defer-init`), after
 * {@link WARM_READY_TIMEOUT_MS}, or when `signal` fires. The error never holds the key.
 */
export async function awaitWarmSandbox(
  url: string,
  key: string,
  { probeTimeoutMs, signal }: AwaitWarmSandboxOptions,
): Promise<void> {
  const deadline = Date.now() + WARM_READY_TIMEOUT_MS;
  const probe = { timeoutMs: probeTimeoutMs, signal };
  const request = { method: 'GET', path: AGENT_SERVER_ROUTES.serverInfo } as const;
  for (;;) {
    signal.throwIfAborted();
    // `undefined`: not listening yet.
    const status = await probeStatus(url, { session: key }, request, probe);
    if (status === 200) {
      const state = await warmSandboxInitState(url, probe);
      if (state === 'dormant') return;
      throw new Error(`the agent-server is '${state}', not 'dormant'`);
    }
    if (status === 401 || status === 403) {
      throw new Error(`the agent-server refused the sandbox key (${status})`);
    }
    if (Date.now() > deadline) {
      throw new Error(`the agent-server was not ready within ${WARM_READY_TIMEOUT_MS} ms`);
    }
    await sleep(WARM_READY_POLL_MS, undefined, { signal });
  }
}
