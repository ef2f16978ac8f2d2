import { readCgroupFile } from './cgroup-file.js';

/**
 * How many processes the kernel's OOM killer has killed in this process's memory cgroup (and
 * below it): `oom_kill` of cgroup v2 `memory.events` or of cgroup v1 `memory.oom_control`, on a
 * host or inside a container. `undefined` where no such counter can be read. A command runs in
 * this cgroup, so the count rising while it ran, and its 137 exit, mean the OOM killer ended it.
 */
export async function readOomKills(): Promise<number | undefined> {
  const v2 = parseOomKills((await readCgroupFile('memory', 'memory.events')) ?? '');
  if (v2 !== undefined) return v2;
  return parseOomKills((await readCgroupFile('memory', 'memory.oom_control')) ?? '');
}

/** The `oom_kill` count of a `memory.events` or `memory.oom_control` text. */
export function parseOomKills(text: string): number | undefined {
  const match = /^oom_kill (\d+)$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}
