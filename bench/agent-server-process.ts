import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../packages/agent-server/dist/cli.js', import.meta.url));

/** An agent-server CLI running in its own process (so its RSS and event loop are its own). */
export interface AgentServerProcess extends AsyncDisposable {
  url: string;
  pid: number;
  /** Peak resident set size of the server so far, in bytes (VmHWM). */
  peakRssBytes(): Promise<number>;
}

/** Peak RSS (VmHWM) of a Linux process, in bytes. */
export async function peakRssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** The bench's flag that profiles the servers it starts: `--agent-server-cpu-prof=<dir>`. */
const CPU_PROF_FLAG = '--agent-server-cpu-prof=';

/**
 * Starts `agent-server --port 0` with `args` and resolves with its URL once it listens. Given
 * `--agent-server-cpu-prof=<dir>` (e.g. `npx tsx bench/run-bench.ts agent
 * --agent-server-cpu-prof=/tmp/prof`), the server runs under `node --cpu-prof` and writes its
 * profile to `<dir>` when it exits.
 */
export async function startAgentServerProcess(args: string[]): Promise<AgentServerProcess> {
  const profileDir = process.argv
    .find((arg) => arg.startsWith(CPU_PROF_FLAG))
    ?.slice(CPU_PROF_FLAG.length);
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const child: ChildProcess = spawn(
    process.execPath,
    [...profile, cli, '--port', '0', '--log-level', 'info', ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('agent-server did not start in 20 s'));
    }, 20_000);
    lines.on('line', (line) => {
      const found = /(http:\/\/[0-9.:[\]a-z]+)/.exec(line);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`agent-server exited with ${code}`)));
  });
  child.stdout?.resume();
  const pid = child.pid!;
  return {
    url,
    pid,
    peakRssBytes: () => peakRssOf(pid),
    async [Symbol.asyncDispose]() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
