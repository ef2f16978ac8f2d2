import { suiteSkipReason } from '@agent-workspace/core/testing';
import { CHROMIUM_PATH } from './open-ui-fixture.js';

/**
 * Why a browser suite cannot run here (no Chromium), or `undefined`; loud, and a failure under
 * `CI=true` (see `suiteSkipReason`). Kept apart from the fixture, which scripts load outside
 * vitest.
 */
export function browserSkipReason(suite: string): string | undefined {
  return suiteSkipReason(
    suite,
    CHROMIUM_PATH ? undefined : 'no Chromium at /usr/bin/chromium (apt-get install -y chromium)',
  );
}
