import { setTimeout as sleep } from 'node:timers/promises';

/** Grace between SIGTERM and SIGKILL when leftover processes are ended. */
export const END_GRACE_MS = 1000;

/**
 * Ends processes: SIGTERM to each, then SIGKILL to those still there after `graceMs`. Resolves
 * with how many there were that could be signalled.
 */
export async function endProcesses(
  pids: readonly number[],
  graceMs = END_GRACE_MS,
): Promise<number> {
  const signalled = pids.filter((pid) => signal(pid, 'SIGTERM'));
  if (signalled.length === 0) return 0;
  const deadline = Date.now() + graceMs;
  let alive = signalled;
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(20);
    alive = alive.filter((pid) => signal(pid, 0));
  }
  for (const pid of alive) signal(pid, 'SIGKILL');
  return signalled.length;
}

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}
