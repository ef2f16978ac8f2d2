import { readFileSync } from 'node:fs';

/**
 * The process's file-mode creation mask, read from `/proc/self/status` (Linux 4.7+) without
 * changing it, as `process.umask()` would for a moment; `undefined` where it cannot be read.
 */
export function processUmask(): number | undefined {
  try {
    const match = /^Umask:\s+([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'latin1'));
    return match ? Number.parseInt(match[1] as string, 8) : undefined;
  } catch {
    return undefined;
  }
}
