/** Grace between SIGTERM and SIGKILL when a command's process group is stopped. */
export const KILL_GRACE_MS = 500;

/**
 * Sends `signal` to every process in the group led by `pgid` (`kill(-pgid, signal)`).
 * Signal `0` only probes. Returns false when no process of the group could be signalled.
 */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    // ESRCH: the group is gone. EPERM: nothing left that we may signal.
    return false;
  }
}

/** Handle of a running {@link killProcessGroup} sequence. */
export interface ProcessGroupKill {
  /** Drops the pending SIGKILL if the group is already gone. */
  settle(): void;
}

/**
 * Stops a whole process group: SIGTERM now, SIGKILL after `graceMs` to whatever is left
 * (including backgrounded grandchildren that ignore SIGTERM).
 */
export function killProcessGroup(pgid: number, graceMs = KILL_GRACE_MS): ProcessGroupKill {
  signalProcessGroup(pgid, 'SIGTERM');
  const timer = setTimeout(() => signalProcessGroup(pgid, 'SIGKILL'), graceMs);
  return {
    settle() {
      if (!signalProcessGroup(pgid, 0)) clearTimeout(timer);
    },
  };
}
