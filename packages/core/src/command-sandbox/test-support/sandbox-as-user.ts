// Run by bubblewrap-sandbox-lifetime.test.ts as root: becomes the unprivileged user given as
// second argument (after its modules are loaded, so the repository need not be readable by that
// user), starts a sandbox in the working dir given as first argument, runs a probe command in it
// and prints a JSON report.
import { startLocalCommand } from '../../local/start-local-command.js';
import { BubblewrapSandbox } from '../bubblewrap-sandbox.js';

const workingDir = process.argv[2] as string;
const user = Number(process.argv[3]);
process.setgroups?.([]);
process.setgid?.(user);
process.setuid?.(user);
await using sandbox = await BubblewrapSandbox.start({ workingDir });
const result = await startLocalCommand({
  command: 'id -u; id -g; touch created-inside; grep -E "^(NoNewPrivs|CapEff)" /proc/self/status',
  cwd: workingDir,
  env: {},
  timeoutMs: 10_000,
  maxOutputBytes: 64 * 1024,
  sandbox,
}).result;
console.log(
  JSON.stringify({
    uid: process.geteuid?.(),
    userNamespace: sandbox.userNamespace,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
  }),
);
