// Run by bubblewrap-sandbox-lifetime.test.ts as root: becomes the unprivileged user given as
// second argument (after its modules are loaded, so the repository need not be readable by that
// user), starts a sandbox in the working dir given as first argument, runs a probe command in it
// and one with a scratch, and prints a JSON report.
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { SYSTEM_PATH } from '../../internal/process/find-executable.js';
import { spawnChild } from '../../internal/process/spawn-child.js';
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
const scratch = await sandbox.createScratch();
const script = `echo kept > ${scratch.path}/note && cat ${scratch.path}/note && grep CapEff /proc/self/status`;
const launch = { file: '/bin/sh', args: ['-c', script], cwd: workingDir };
const child = spawnChild({ ...sandbox.wrap(launch, { scratch }), env: { PATH: SYSTEM_PATH } });
const [scratchStdout, scratchStderr] = await Promise.all([
  text(child.stdout as Readable),
  text(child.stderr as Readable),
  child.exit,
]);
console.log(
  JSON.stringify({
    uid: process.geteuid?.(),
    userNamespace: sandbox.userNamespace,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    scratch: { stdout: scratchStdout, stderr: scratchStderr },
  }),
);
