// Host-side views of a sandbox's pid namespace, for tests.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** The pid namespace of host process `pid`, e.g. `pid:[4026532181]`. */
export function pidNamespaceOf(pid: number): string {
  return readlinkSync(`/proc/${pid}/ns/pid`);
}

/** Host pids of the live (not zombie) processes in `namespace`. */
export function pidsInNamespace(namespace: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const pid = Number(entry);
      if (readlinkSync(`/proc/${entry}/ns/pid`) === namespace && isAlive(pid)) pids.push(pid);
    } catch {
      // Exited meanwhile.
    }
  }
  return pids;
}

/** Waits (at most 5 s) until no process is left in `namespace`; returns the survivors. */
export async function survivorsOf(namespace: string): Promise<number[]> {
  let pids = pidsInNamespace(namespace);
  for (let attempt = 0; attempt < 250 && pids.length > 0; attempt++) {
    await sleep(20);
    pids = pidsInNamespace(namespace);
  }
  return pids;
}

/** True while host process `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}
