import { readFileSync } from 'node:fs';

/** True while `pid` exists and is not a zombie (a reaped-later child counts as gone). */
export function isProcessRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}
