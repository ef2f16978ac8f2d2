// Run by spawn-child.test.ts under a low `ulimit -n`: starts commands and git calls at once,
// prints a JSON summary of how each settled, then proves a command and git still work.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runGit } from '../../../git/run-git.js';
import { startLocalCommand } from '../../../local/start-local-command.js';

const COMMANDS = 200;
const GIT_CALLS = 50;
const cwd = mkdtempSync(path.join(tmpdir(), 'spawn-flood-'));

/** `ok`, or `SPAWN_ERROR:<errno>`, or the unexpected error's code and message. */
function outcome(error: unknown): string {
  const { code, details, message } = error as {
    code?: string;
    details?: { errno?: string };
    message?: string;
  };
  return code === 'SPAWN_ERROR' ? `SPAWN_ERROR:${details?.errno}` : `${code}: ${message}`;
}

const command = (text: string) =>
  startLocalCommand({ command: text, cwd, timeoutMs: 20_000, env: {}, maxOutputBytes: 1024 })
    .result;

const openDescriptors = () => readdirSync('/proc/self/fd').length;

/**
 * The descriptor count once it is down to `limit`, or the last one seen within 2 s: a command's
 * OOM-count read may still hold a file open for a moment after the command settled; a leak
 * stays.
 */
async function settledDescriptors(limit: number): Promise<number> {
  const deadline = Date.now() + 2_000;
  let count = openDescriptors();
  while (count > limit && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    count = openDescriptors();
  }
  return count;
}

// A first command sets up what every later spawn shares (libuv's signal pipes).
await command('true');
const descriptorsBefore = openDescriptors();
const pending: Array<Promise<[kind: string, outcome: string]>> = [];
for (let index = 0; index < COMMANDS + GIT_CALLS; index++) {
  // Every fifth call is git, so git calls meet the exhaustion too.
  const kind = index % 5 === 4 ? 'git' : 'command';
  const call =
    kind === 'git'
      ? runGit(['version'], { cwd }).then((result) => (result.exitCode === 0 ? 'ok' : 'failed'))
      : command('sleep 0.5').then((result) => (result.exitCode === 0 ? 'ok' : 'failed'));
  pending.push(
    call.then(
      (settled) => [kind, settled],
      (error) => [kind, outcome(error)],
    ),
  );
}
const outcomes: Record<string, Record<string, number>> = { command: {}, git: {} };
for (const [kind, settled] of await Promise.all(pending)) {
  const counts = outcomes[kind] as Record<string, number>;
  counts[settled] = (counts[settled] ?? 0) + 1;
}
const after = await command('echo still works');
const gitAfter = await runGit(['version'], { cwd });
const descriptorsAfter = await settledDescriptors(descriptorsBefore);
console.log(
  JSON.stringify({
    descriptorsBefore,
    descriptorsAfter,
    outcomes,
    after: after.stdout,
    gitAfter: gitAfter.exitCode === 0 && gitAfter.stdout.startsWith('git version'),
  }),
);
rmSync(cwd, { recursive: true, force: true });
