/**
 * Returns `reason` for a suite that cannot run here (a missing engine, browser or kernel),
 * printed loudly, or `undefined` when it can. Under `CI=true` a reason throws instead, so CI can
 * never pass by skipping.
 *
 * @example
 * ```ts
 * describe.skipIf(suiteSkipReason('browser suite', chromiumMissing()))('browser suite', () => {});
 * ```
 */
export function suiteSkipReason(suite: string, reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  if (process.env.CI === 'true') throw new Error(`${suite}: ${reason}; CI must run it`);
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n!! SKIPPING ${suite}: ${reason}\n${bar}\n`);
  return reason;
}
