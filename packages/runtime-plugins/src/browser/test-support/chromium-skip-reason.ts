import { suiteSkipReason } from '@agent-workspace/core/testing';
import { resolveExecutable } from '../resolve-executable.js';

/** The Chromium the browser suites drive: `$AGENT_WORKSPACE_CHROMIUM` or the system's. */
export const TEST_CHROMIUM = resolveExecutable([
  ...(process.env.AGENT_WORKSPACE_CHROMIUM ? [process.env.AGENT_WORKSPACE_CHROMIUM] : []),
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  'chromium',
  'google-chrome',
]);

/**
 * Why `suite` cannot run here (no Chromium, or `extra`, e.g. no bubblewrap), printed loudly, or
 * `undefined`; throws under `CI=true`.
 */
export function chromiumSkipReason(suite: string, extra?: string | undefined): string | undefined {
  const reason =
    TEST_CHROMIUM === undefined ? 'no Chromium here (apt-get install -y chromium)' : extra;
  return suiteSkipReason(suite, reason);
}
