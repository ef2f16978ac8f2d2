import { setTimeout as sleep } from 'node:timers/promises';
import { anySignal } from '../internal/any-signal.js';
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
  initialIntervalMs?: number | undefined;
  /** Longest pause between probes. Default 500 ms. */
  maxIntervalMs?: number | undefined;
  /**
   * Settles when the sandbox says its agent-server listens (a log line): the pause before the
   * next probe ends then, so readiness is seen at once rather than at the next poll. Polling
   * goes on regardless, for servers that never say so.
   */
  readyHint?: Promise<unknown> | undefined;
}

/** The agent-server answered, or the sandbox died first (with its state). */
export type WaitUntilAliveResult = { alive: true } | { alive: false; state: SandboxState };

/**
 * Probes the agent-server's health until it answers, checking between probes that the sandbox
 * still lives, so a crashed sandbox fails fast instead of running into the deadline. A ready
 * hint cuts the pause short once; after it, failed probes back off from the first interval.
 */
export async function waitUntilAlive({
  probe,
  state,
  signal,
  initialIntervalMs = 50,
  maxIntervalMs = 500,
  readyHint,
}: WaitUntilAliveOptions): Promise<WaitUntilAliveResult> {
  const backoff = new Backoff({ initialMs: initialIntervalMs, maxMs: maxIntervalMs });
  // Resolves true once, when the hint settles (either way: a broken hint only ends one pause).
  let hint = readyHint?.then(
    () => true,
    () => true,
  );
  for (;;) {
    if (await raceSignal(probe(), signal)) return { alive: true };
    const current = await raceSignal(state(signal), signal);
    if (isSandboxGone(current)) return { alive: false, state: current };
    const pause = new AbortController();
    const waits: Promise<unknown>[] = [
      sleep(backoff.next(), undefined, { signal: anySignal([signal, pause.signal]) }).catch(
        () => {},
      ),
    ];
    if (hint) waits.push(hint);
    const hinted = await raceSignal(Promise.race(waits), signal);
    pause.abort();
    if (hinted === true) {
      hint = undefined;
      backoff.reset();
    }
  }
}
