/**
 * One signal that aborts when any of `signals` does, with its reason; `undefined` entries are
 * skipped. The signal itself when only one is given (no composite to keep alive), a signal that
 * never aborts when none is. For a deadline use `timeoutSignal`, never `AbortSignal.timeout`
 * inside this: Node 20 can collect such a timeout before it fires.
 */
export function anySignal(signals: ReadonlyArray<AbortSignal | undefined>): AbortSignal {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length === 0) return new AbortController().signal;
  if (present.length === 1) return present[0]!;
  return AbortSignal.any(present);
}
