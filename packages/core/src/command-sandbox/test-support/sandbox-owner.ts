// Run by bubblewrap-sandbox-lifetime.test.ts: starts a sandbox in the working dir given as
// argument, leaves `sleep 1000` running in it, prints the sandbox's pid and waits to be killed.
import { startLocalCommand } from '../../local/start-local-command.js';
import { BubblewrapSandbox } from '../bubblewrap-sandbox.js';

const workingDir = process.argv[2] as string;
const sandbox = await BubblewrapSandbox.start({ workingDir });
const result = await startLocalCommand({
  command: 'sleep 1000 & echo $!',
  cwd: workingDir,
  env: {},
  timeoutMs: 10_000,
  maxOutputBytes: 1024,
  sandbox,
}).result;
console.log(JSON.stringify({ pid: sandbox.pid, sleepPid: result.stdout.trim() }));
setInterval(() => {}, 60_000);
