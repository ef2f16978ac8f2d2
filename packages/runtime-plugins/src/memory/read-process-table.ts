import { readdirSync, readFileSync } from 'node:fs';

/** One process of {@link readProcessTable}. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgrp: number;
}

/** Every process `/proc` shows (parent and process group of each); empty where there is no `/proc`. */
export function readProcessTable(): ProcessEntry[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const table: ProcessEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue;
    }
    // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.push({ pid: Number(entry), ppid: Number(fields[1]), pgrp: Number(fields[2]) });
  }
  return table;
}

/**
 * Resident memory of a process in bytes, shared pages split among the processes sharing them
 * (`Pss` of `/proc/<pid>/smaps_rollup`), so that a tree of processes sharing a binary or memory
 * (Chromium's) is not counted several times; `VmRSS` where the kernel has no `smaps_rollup`.
 * 0 when the process is gone.
 */
export function readResidentBytes(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1');
    const pss = /^Pss:\s+(\d+) kB$/m.exec(rollup);
    if (pss) return Number(pss[1]) * 1024;
  } catch {
    // Gone, or a kernel without smaps_rollup: try the status line.
  }
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** `root`, its descendants and, when it leads a process group, the rest of that group. */
export function processTree(table: readonly ProcessEntry[], root: number): number[] {
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of table) {
    const siblings = children.get(ppid);
    if (siblings) siblings.push(pid);
    else children.set(ppid, [pid]);
  }
  const members = new Set<number>();
  if (table.some((entry) => entry.pid === root)) members.add(root);
  for (const { pid, pgrp } of table) if (pgrp === root) members.add(pid);
  const queue = [...members];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (!members.has(child)) {
        members.add(child);
        queue.push(child);
      }
    }
  }
  return [...members];
}
