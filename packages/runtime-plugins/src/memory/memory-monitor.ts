import { positiveOption } from '@agent-workspace/core/internal';
import { processTree, readProcessTable, readResidentBytes } from './read-process-table.js';

/** A process tree the memory monitor watches. */
export interface ProcessTreeWatch {
  /** What it is, for reports and messages, e.g. `python kernel`. */
  label: string;
  /** Its root process; the tree is the root, its descendants and the group the root leads. */
  pid: number;
  /** Called once the tree used more than the limit and was killed. */
  onExceeded: (usage: { rssBytes: number; limitBytes: number }) => void;
}

/** Memory of one watched tree at the last sample. */
export interface ProcessTreeMemory {
  label: string;
  pid: number;
  rssBytes: number;
}

/** What {@link MemoryMonitor.report} answers. */
export interface MemoryReport {
  /** Resident memory of this (the server's) process. */
  serverRssBytes: number;
  trees: ProcessTreeMemory[];
  /** The per-tree limit, or `undefined` when none is set. */
  limitBytes: number | undefined;
}

/** Options of {@link MemoryMonitor}. */
export interface MemoryMonitorOptions {
  /**
   * Most resident memory one watched tree may use, in bytes; over it the tree is killed with
   * SIGKILL and its watcher told. Unset: trees are measured, never killed.
   */
  limitBytes?: number | undefined;
  /** How often trees are sampled, in milliseconds. Default 250; at least 20. */
  intervalMs?: number | undefined;
}

/** Default sampling interval of {@link MemoryMonitor}. */
export const MEMORY_SAMPLE_INTERVAL_MS = 250;

interface Watched extends ProcessTreeWatch {
  rssBytes: number;
}

/**
 * Measures the resident memory of process trees (commands, a kernel, a browser) from `/proc` and,
 * with a limit, kills a tree that grows past it before the machine's out-of-memory killer picks a
 * victim — possibly the server. Sampling runs only while something is watched.
 *
 * @example
 * ```ts
 * await using monitor = new MemoryMonitor({ limitBytes: 512 * 1024 ** 2 });
 * const unwatch = monitor.watch({ label: 'kernel', pid, onExceeded: ({ rssBytes }) => log(rssBytes) });
 * ```
 */
export class MemoryMonitor implements AsyncDisposable {
  readonly limitBytes: number | undefined;
  readonly #intervalMs: number;
  readonly #watched = new Set<Watched>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: MemoryMonitorOptions = {}) {
    this.limitBytes =
      options.limitBytes === undefined
        ? undefined
        : positiveOption(options.limitBytes, 0, 'limitBytes');
    const intervalMs = positiveOption(options.intervalMs, MEMORY_SAMPLE_INTERVAL_MS, 'intervalMs');
    this.#intervalMs = Math.max(20, intervalMs);
  }

  /** Starts watching a tree; the returned function stops it. Ignored after `close()`. */
  watch(watch: ProcessTreeWatch): () => void {
    const entry: Watched = { ...watch, rssBytes: 0 };
    if (this.#closed) return () => {};
    this.#watched.add(entry);
    this.#timer ??= setInterval(() => this.sample(), this.#intervalMs).unref();
    return () => {
      this.#watched.delete(entry);
      if (this.#watched.size === 0) this.#stopTimer();
    };
  }

  /** Measures every watched tree now and enforces the limit; the timer calls it. */
  sample(): void {
    if (this.#watched.size === 0) return;
    const table = readProcessTable();
    for (const watched of [...this.#watched]) {
      const members = processTree(table, watched.pid);
      watched.rssBytes = members.reduce((sum, pid) => sum + readResidentBytes(pid), 0);
      if (this.limitBytes === undefined || watched.rssBytes <= this.limitBytes) continue;
      this.#watched.delete(watched);
      for (const pid of members) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      watched.onExceeded({ rssBytes: watched.rssBytes, limitBytes: this.limitBytes });
    }
    if (this.#watched.size === 0) this.#stopTimer();
  }

  /** The server's memory and each watched tree's at the last sample. */
  report(): MemoryReport {
    return {
      serverRssBytes: process.memoryUsage.rss(),
      trees: [...this.#watched].map(({ label, pid, rssBytes }) => ({ label, pid, rssBytes })),
      limitBytes: this.limitBytes,
    };
  }

  /** Stops sampling and forgets every tree (which keep running). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#watched.clear();
    this.#stopTimer();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** `bytes` as MiB with one decimal, for messages. */
export function formatMebibytes(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}
