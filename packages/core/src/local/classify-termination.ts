import { constants as osConstants } from 'node:os';
import type { TerminationReason } from '@agent-workspace/protocol';

const SIGKILL_EXIT = 128 + osConstants.signals.SIGKILL;
const LIMIT_SIGNALS: readonly NodeJS.Signals[] = ['SIGXCPU', 'SIGXFSZ'];

/** What {@link classifyTermination} looks at. */
export interface TerminationFacts {
  timedOut: boolean;
  /** Exit code as reported (`128 + n` when signal `n` killed bash or what it ran last). */
  exitCode: number;
  /** The signal that killed bash itself, if one did. */
  exitSignal: NodeJS.Signals | null;
  /** {@link readOomKills} before the command started and after it ended. */
  oomKillsBefore: number | undefined;
  oomKillsAfter: number | undefined;
}

/**
 * Why a command ended, when it did not exit on its own: `timeout`, `oom` (a SIGKILL exit while
 * the memory cgroup's OOM-kill count rose), `limit` (`SIGXCPU` / `SIGXFSZ`), `signal` (bash
 * itself was killed by another signal); `undefined` for an ordinary exit. A program that chooses
 * `exit 137` is not taken for a kill unless the OOM count rose meanwhile.
 */
export function classifyTermination(facts: TerminationFacts): TerminationReason | undefined {
  if (facts.timedOut) return 'timeout';
  const oomKilled =
    facts.oomKillsBefore !== undefined &&
    facts.oomKillsAfter !== undefined &&
    facts.oomKillsAfter > facts.oomKillsBefore;
  if (oomKilled && (facts.exitCode === SIGKILL_EXIT || facts.exitSignal === 'SIGKILL')) {
    return 'oom';
  }
  const limitExits = LIMIT_SIGNALS.map((name) => 128 + osConstants.signals[name]);
  if (
    (facts.exitSignal !== null && LIMIT_SIGNALS.includes(facts.exitSignal)) ||
    limitExits.includes(facts.exitCode)
  ) {
    return 'limit';
  }
  return facts.exitSignal === null ? undefined : 'signal';
}
