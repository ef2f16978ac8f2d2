import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageRoot = path.resolve(here, '..', '..', '..');

/** A child process holding (or failing to take) a lease; see `hold-lease.ts`. */
export interface LeaseHolderProcess {
  child: ChildProcess;
  /** The child's next JSON line. */
  nextLine(): Promise<Record<string, unknown>>;
  /** Resolves with the exit signal or code once the child is gone. */
  exited: Promise<NodeJS.Signals | number | null>;
}

/** Options of {@link startLeaseHolder}. */
export interface StartLeaseHolderOptions {
  workingDir: string;
  leaseDir: string;
  mode: 'shared_read' | 'exclusive_write';
  holderId: string;
}

/** Spawns `node --import tsx hold-lease.ts ...`. */
export function startLeaseHolder(options: StartLeaseHolderOptions): LeaseHolderProcess {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(here, 'hold-lease.ts'),
      options.workingDir,
      options.leaseDir,
      options.mode,
      options.holderId,
    ],
    { cwd: packageRoot, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines: Interface = createInterface({ input: child.stdout! });
  const iterator = lines[Symbol.asyncIterator]();
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? code));
  });
  return {
    child,
    exited,
    async nextLine() {
      const next = await iterator.next();
      if (next.done) throw new Error('the lease holder process ended without a line');
      return JSON.parse(next.value) as Record<string, unknown>;
    },
  };
}
