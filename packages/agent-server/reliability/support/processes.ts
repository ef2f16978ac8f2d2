import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { suiteSkipReason } from '@agent-workspace/core/testing';

/** The parent pid of every process, from `/proc/<pid>/stat`. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(entry), Number(fields[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  return map;
}

/** Every descendant of `pid` (children, their children, ...). */
export function descendantsOf(pid: number): number[] {
  const map = parents();
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    for (const [child, parent] of map) {
      if (parent === current && !found.includes(child)) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** The command name of a process (`/proc/<pid>/comm`), or undefined once it is gone. */
export function commandName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Why a `--sandbox` server cannot be tested here (bwrap missing or unable to create
 * namespaces), printed loudly; undefined when it can. Under `CI=true` this throws instead: CI
 * must run every test.
 */
export function sandboxSkipReason(suite: string): string | undefined {
  const probe = spawnSync(
    'bwrap',
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', 'true'],
    { stdio: 'ignore' },
  );
  let reason: string | undefined;
  if (probe.error)
    reason = `bwrap is not installed (${(probe.error as NodeJS.ErrnoException).code})`;
  else if (probe.status !== 0)
    reason = `bwrap cannot create namespaces here (exit ${probe.status})`;
  return suiteSkipReason(suite, reason);
}

/**
 * Why a server's python plugin cannot start a kernel here (`/usr/bin/python3` lacks ipykernel),
 * printed loudly; undefined when it can. Throws under `CI=true`.
 */
export function kernelSkipReason(suite: string): string | undefined {
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import ipykernel'], { stdio: 'ignore' });
  return suiteSkipReason(
    suite,
    probe.status === 0
      ? undefined
      : '/usr/bin/python3 cannot import ipykernel (apt-get install -y python3-ipykernel)',
  );
}
