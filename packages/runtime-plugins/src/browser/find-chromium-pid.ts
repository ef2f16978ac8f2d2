import { readFileSync } from 'node:fs';
import { readProcessTable } from '../memory/read-process-table.js';

/**
 * Pid of the Chromium browser process this Node process started with `--user-data-dir=<dir>`,
 * or `undefined` where `/proc` does not show it. Playwright does not hand out the pid of a
 * browser it launched; the profile directory, ours alone, tells the process apart.
 */
export function findChromiumPid(userDataDir: string): number | undefined {
  const flag = `--user-data-dir=${userDataDir}`;
  for (const { pid, ppid } of readProcessTable()) {
    if (ppid !== process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(flag)) return pid;
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}
