import { expect } from 'vitest';
import type { ContractContext } from './contract-context.js';

// Git with a fixed identity and none of the user's hooks, signing or line-ending settings.
const prelude = [
  'set -euo pipefail',
  'g() { git -c user.name=contract -c user.email=contract@example.com -c commit.gpgsign=false' +
    ' -c init.defaultBranch=main -c core.hooksPath=/dev/null -c core.autocrlf=false "$@"; }',
].join('\n');

/**
 * Runs a bash script in the contract's workspace, in `cwd`, where `g` is git with a fixed
 * identity (`contract`), no hooks, signing or line-ending conversion; fails the test on a
 * non-zero exit and resolves to its standard output.
 */
export async function runGitScript(
  context: ContractContext,
  cwd: string,
  script: string,
): Promise<string> {
  const result = await context
    .workspace()
    .executeCommand(`${prelude}\n${script}`, { cwd, timeoutMs: 20_000 });
  expect(result.exitCode, `setup script failed: ${result.stderr}`).toBe(0);
  return result.stdout;
}
