/** Milliseconds until `deadline` (a `Date.now()` time), within what `setTimeout` takes. */
export function msUntil(deadline: number): number {
  return Math.min(Math.max(0, deadline - Date.now()), 2 ** 31 - 1);
}
