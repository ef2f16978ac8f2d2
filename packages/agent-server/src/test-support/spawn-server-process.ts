import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** An agent-server running as a child process. */
export interface ServerProcess {
  child: ChildProcess;
  /** The URL from its "listening" log line. */
  url: string;
  /** Its JSON log lines so far. */
  logs: Record<string, unknown>[];
  /** Resolves with the exit code once it exits. */
  exited: Promise<number | null>;
}

/**
 * Runs `node <args>` and resolves once the server logs the line carrying its `url`; rejects
 * with its standard error if it exits before.
 */
export function spawnServerProcess(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (typeof entry.url === 'string') resolve({ child, url: entry.url, logs, exited });
    });
    void exited.then((code) =>
      reject(new Error(`exited with ${code} before listening: ${stderr}`)),
    );
  });
}
