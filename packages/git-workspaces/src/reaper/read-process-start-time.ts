import { readFile } from 'node:fs/promises';

/**
 * The start time of process `pid` in clock ticks since boot: field 22 of `/proc/<pid>/stat`
 * (read after the last `)`, since the command name may hold spaces and parentheses). Together
 * with the pid it names one process, so a recycled pid is not mistaken for the owner.
 * `undefined` when the process does not exist or there is no `/proc` (not Linux).
 */
export async function readProcessStartTime(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the name start at field 3 (state); field 22 is starttime.
  return fields[22 - 3];
}
