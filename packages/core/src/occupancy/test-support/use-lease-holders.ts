import { afterEach } from 'vitest';
import {
  type LeaseHolderProcess,
  type StartLeaseHolderOptions,
  startLeaseHolder,
} from './lease-holder-process.js';

/**
 * Returns a starter of lease-holding child processes, each killed (if still running) and waited
 * for after each test. Call it at the top of a test file.
 */
export function useLeaseHolders(): (options: StartLeaseHolderOptions) => LeaseHolderProcess {
  const children: LeaseHolderProcess[] = [];
  afterEach(async () => {
    for (const holder of children.splice(0)) {
      if (holder.child.exitCode === null && holder.child.signalCode === null) {
        holder.child.kill('SIGKILL');
      }
      await holder.exited;
    }
  });
  return (options) => {
    const started = startLeaseHolder(options);
    children.push(started);
    return started;
  };
}
