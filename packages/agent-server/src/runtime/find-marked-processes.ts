import { readdirSync, readFileSync } from 'node:fs';

/**
 * Pids of the processes whose environment holds `name=value` (read from `/proc/<pid>/environ`;
 * processes of other users, which cannot be read, are skipped), this process excluded. Empty where
 * there is no `/proc`.
 */
export function findMarkedProcesses(name: string, value: string): number[] {
  const needle = Buffer.from(`\0${name}=${value}\0`);
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environment: Buffer;
    try {
      environment = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    // A leading NUL lets the first variable match like the others.
    if (Buffer.concat([Buffer.from([0]), environment]).includes(needle)) pids.push(Number(entry));
  }
  return pids;
}
