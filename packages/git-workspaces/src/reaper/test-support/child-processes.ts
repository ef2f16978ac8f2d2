import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageRoot = path.resolve(here, '..', '..', '..');

/** A child process of a test, with its first JSON line and its end. */
export interface TestChild {
  child: ChildProcess;
  /** The first JSON line the child printed. */
  firstLine: Promise<Record<string, unknown>>;
  exited: Promise<NodeJS.Signals | number | null>;
}

/**
 * Returns a starter of child processes (`node <args>` in the package root) that are all killed
 * after each test. Call it at the top of a test file.
 */
export function useChildProcesses(): (args: string[]) => TestChild {
  const started: TestChild[] = [];
  afterEach(async () => {
    for (const { child, exited } of started.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }
  });
  return (args) => {
    const child = spawn(process.execPath, args, {
      cwd: packageRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => {
      child.once('exit', (code, signal) => resolve(signal ?? code));
    });
    const firstLine = (async () => {
      for await (const line of createInterface({ input: child.stdout! })) {
        return JSON.parse(line) as Record<string, unknown>;
      }
      throw new Error('the child ended without a line');
    })();
    const started_ = { child, firstLine, exited };
    started.push(started_);
    return started_;
  };
}

/** Starts a child holding a lease on a `LocalWorkspace` of `workingDir`; see `hold-directory-lease.ts`. */
export function holdDirectoryLeaseArgs(
  workingDir: string,
  mode: 'shared_read' | 'exclusive_write',
  holderId: string,
): string[] {
  return [
    '--import',
    'tsx',
    path.join(here, 'hold-directory-lease.ts'),
    workingDir,
    mode,
    holderId,
  ];
}
