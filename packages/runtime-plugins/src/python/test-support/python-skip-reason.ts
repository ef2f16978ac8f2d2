import { spawnSync } from 'node:child_process';
import { suiteSkipReason } from '@agent-workspace/core/testing';

/** The interpreter the real-kernel suites use: Debian's, whatever is first on `PATH`. */
export const TEST_PYTHON = '/usr/bin/python3';

/**
 * Why `suite` cannot run here (`/usr/bin/python3` lacks ipykernel), printed loudly, or
 * `undefined`; throws under `CI=true`.
 */
export function pythonSkipReason(suite: string): string | undefined {
  const probe = spawnSync(TEST_PYTHON, ['-c', 'import ipykernel'], { encoding: 'utf8' });
  const reason =
    probe.status === 0
      ? undefined
      : `${TEST_PYTHON} cannot import ipykernel (apt-get install -y python3-ipykernel)`;
  return suiteSkipReason(suite, reason);
}
