import { readFileSync } from 'node:fs';
import { isProcessAlive } from '@agent-workspace/core/internal';

/** What tells a running server instance from a later process that got its pid. */
export interface InstanceIdentity {
  pid: number;
  /** Start time in clock ticks since boot (`/proc/<pid>/stat` field 22); empty where unknown. */
  start: string;
  /** `/proc/sys/kernel/random/boot_id`; empty where unknown. */
  boot: string;
}

/** This process's identity. */
export function thisInstance(): InstanceIdentity {
  return { pid: process.pid, start: startTimeOf(process.pid) ?? '', boot: bootId() };
}

/** True while the process named by `identity` still runs (same pid, start time and boot). */
export function isSameInstanceAlive(identity: InstanceIdentity): boolean {
  if (identity.boot !== bootId()) return false;
  if (!isProcessAlive(identity.pid)) return false;
  const start = startTimeOf(identity.pid);
  return start === undefined || identity.start === '' || start === identity.start;
}

function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}
