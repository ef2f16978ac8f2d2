import { BubblewrapSandbox } from '../command-sandbox/bubblewrap-sandbox.js';

/**
 * Why a test suite that needs a {@link BubblewrapSandbox} cannot run here (not Linux, or bwrap,
 * nsenter, setpriv, env or sh missing), printed loudly; `undefined` when it can. Under
 * `CI=true` a missing sandbox throws instead, so CI can never pass by skipping.
 */
export function commandSandboxSkipReason(suite: string): string | undefined {
  const reason = BubblewrapSandbox.unsupportedReason();
  if (reason === undefined) return undefined;
  if (process.env.CI === 'true') throw new Error(`${suite}: ${reason}; CI must run it`);
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n!! SKIPPING ${suite}: ${reason}\n${bar}\n`);
  return reason;
}
