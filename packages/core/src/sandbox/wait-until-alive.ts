import { setTimeout as sleep } from 'node:timers/promises';
import { Backoff } from '../internal/backoff.js';
import { raceSignal } from './race-signal.js';
import { isSandboxGone, type SandboxState } from './sandbox-state.js';

/** Options of {@link waitUntilAlive}. */
export interface WaitUntilAliveOptions {
  /** True once the agent-server answers `GET /health`; a failed probe resolves false. */
  probe: () => Promise<boolean>;
  /** Reads the sandbox's state; asked after every failed probe. */
  state: (signal: AbortSignal) => Promise<SandboxState>;
  /** Ends the wait, rejecting with its reason (the caller's deadline, close, abort). */
  signal: AbortSignal;
  /** First pause between probes, doubling up to `maxIntervalMs`. Default 50 ms. */
  initialIntervalMs?: number;
  /** Longest pause between probes. Default 500 ms. */
  maxIntervalMs?: number;
}

/** The agent-server answered, or the sandbox died first (with its state). */
export type WaitUntilAliveResult = { alive: true } | { alive: false; state: SandboxState };

/**
 * Probes the agent-server's health until it answers, checking between probes that the sandbox
 * still lives, so a crashed sandbox fails fast instead of running into the deadline.
 */
export async function waitUntilAlive({
  probe,
  state,
  signal,
  initialIntervalMs = 50,
  maxIntervalMs = 500,
}: WaitUntilAliveOptions): Promise<WaitUntilAliveResult> {
  const backoff = new Backoff({ initialMs: initialIntervalMs, maxMs: maxIntervalMs });
  for (;;) {
    if (await raceSignal(probe(), signal)) return { alive: true };
    const current = await raceSignal(state(signal), signal);
    if (isSandboxGone(current)) return { alive: false, state: current };
    await raceSignal(sleep(backoff.next(), undefined, { signal }), signal);
  }
}
