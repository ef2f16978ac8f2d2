import { BubblewrapSandbox } from '../command-sandbox/bubblewrap-sandbox.js';
import { suiteSkipReason } from './suite-skip-reason.js';

/**
 * Why a test suite that needs a {@link BubblewrapSandbox} cannot run here (not Linux, or bwrap,
 * nsenter, setpriv, env or sh missing), printed loudly; `undefined` when it can. Under
 * `CI=true` a missing sandbox throws instead, so CI can never pass by skipping.
 */
export function commandSandboxSkipReason(suite: string): string | undefined {
  return suiteSkipReason(suite, BubblewrapSandbox.unsupportedReason());
}
