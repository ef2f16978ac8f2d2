import { readFileSync } from 'node:fs';

/** The connection cap where the open-files limit is unlimited, unknown or large. */
export const MAX_DEFAULT_CONNECTIONS = 1000;

/** Fewest connections the default allows, however low the open-files limit. */
const MIN_DEFAULT_CONNECTIONS = 16;

/** Descriptors kept for the process itself (Node, logs, journal, listening socket). */
const RESERVED_DESCRIPTORS = 64;

/** Options of {@link readOpenFilesLimit}. */
export interface ReadOpenFilesLimitOptions {
  /** The limits file; default `/proc/self/limits`. */
  limitsFile?: string | undefined;
}

/**
 * The soft `RLIMIT_NOFILE` of this process, read from `/proc/self/limits` (`Max open files`);
 * `undefined` when it is unlimited or cannot be read (not Linux).
 */
export function readOpenFilesLimit(options: ReadOpenFilesLimitOptions = {}): number | undefined {
  let text: string;
  try {
    text = readFileSync(options.limitsFile ?? '/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)\s/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}

/**
 * The default cap on open client connections for a soft open-files limit (see
 * {@link readOpenFilesLimit}): half of the descriptors left once 64 are set aside, so the other
 * half stays for commands (their pipes), files and sockets:
 * `min(1000, max(16, floor((limit - 64) / 2)))` (`ulimit -n` 256 gives 96, 1024 gives 480);
 * 1000 when the limit is unlimited or unknown (`undefined`).
 */
export function defaultMaxConnections(openFilesLimit: number | undefined): number {
  if (openFilesLimit === undefined) return MAX_DEFAULT_CONNECTIONS;
  const half = Math.floor((openFilesLimit - RESERVED_DESCRIPTORS) / 2);
  return Math.min(MAX_DEFAULT_CONNECTIONS, Math.max(MIN_DEFAULT_CONNECTIONS, half));
}
