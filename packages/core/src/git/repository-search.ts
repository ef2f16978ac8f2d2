import { setMaxListeners } from 'node:events';
import type { GitChangesTruncation } from '@agent-workspace/protocol';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { timeoutSignal } from '../internal/timeout-signal.js';

/**
 * Bounds of the search for repositories nested below the directory `readGitChanges` is asked
 * about. Without them, `path=/` on an unconfined agent-server would walk every directory and
 * scan every repository of the machine.
 */
export interface RepositorySearchLimits {
  /**
   * Deepest level searched below the directory asked about, in path segments (`a/b` is 2):
   * deeper repositories are not scanned and deeper directories are not read.
   */
  maxDepth: number;
  /** Most nested repositories scanned; the directory asked about does not count. */
  maxRepositories: number;
  /**
   * Most directories read (outside work trees) or probed for a `.git` entry (above the paths a
   * work tree reports) while looking for repositories. Repositories already found are still
   * scanned when it is reached.
   */
  maxDirectories: number;
  /**
   * Milliseconds from the call after which no directory is read and no nested repository is
   * scanned any more; the nested scans in flight are stopped and left out. The git calls of the
   * directory asked about are not cut short (each has its own 30 s bound).
   */
  timeoutMs: number;
}

/** Default {@link RepositorySearchLimits}. */
export const DEFAULT_REPOSITORY_SEARCH_LIMITS: Readonly<RepositorySearchLimits> = Object.freeze({
  /** Deep enough for `projects/<org>/<repo>/vendor/<lib>` under a home directory. */
  maxDepth: 6,
  /** A workspace with more repositories than this is better asked about one at a time. */
  maxRepositories: 100,
  /** About a second of `readdir` on a local disk (measured from `/` of a small VM). */
  maxDirectories: 20_000,
  /** Well below git's own 30 s bound per call, which a hanging nested repository would take. */
  timeoutMs: 5_000,
});

/** Checks `limits` (`INVALID_ARGUMENT` naming `searchLimits.<name>`) and fills in the defaults. */
function resolveLimits(limits: Partial<RepositorySearchLimits> = {}): RepositorySearchLimits {
  const resolved = { ...DEFAULT_REPOSITORY_SEARCH_LIMITS };
  for (const name of ['maxDepth', 'maxRepositories', 'maxDirectories'] as const) {
    const value = limits[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw invalidArgument(`searchLimits.${name}`, `must be a non-negative integer, got ${value}`);
    }
    resolved[name] = value;
  }
  const { timeoutMs } = limits;
  if (timeoutMs !== undefined) {
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw invalidArgument(
        'searchLimits.timeoutMs',
        `must be a positive number, got ${timeoutMs}`,
      );
    }
    resolved.timeoutMs = timeoutMs;
  }
  return resolved;
}

/**
 * One bounded search for nested repositories: counts directories and repositories against the
 * limits, watches the clock, and remembers which bound cut the search short. `time` and
 * `repositories` end the whole search; `directories` ends the looking (repositories found are
 * still scanned); `depth` only leaves out what lies deeper.
 */
export class RepositorySearch {
  /** The limits in force, defaults applied. */
  readonly limits: RepositorySearchLimits;
  /** Fires when the caller's signal fires or the time is up; nested git calls run under it. */
  readonly signal: AbortSignal;
  readonly #caller: AbortSignal | undefined;
  readonly #deadline: number;
  #directories = 0;
  #repositories = 0;
  #looking = true;
  #ended = false;
  #truncated: GitChangesTruncation | undefined;

  /** Starts the clock. Throws `INVALID_ARGUMENT` for a bad limit. */
  constructor(limits?: Partial<RepositorySearchLimits>, signal?: AbortSignal) {
    this.limits = resolveLimits(limits);
    this.#caller = signal;
    this.#deadline = Date.now() + this.limits.timeoutMs;
    this.signal = timeoutSignal({ timeoutMs: this.limits.timeoutMs, signal });
    // Every git call of the nested scans in flight listens to it, a dozen at once.
    setMaxListeners(0, this.signal);
  }

  /** The bound that cut the search short, if any (one that ended it wins over `depth`). */
  get truncated(): GitChangesTruncation | undefined {
    return this.#truncated;
  }

  /** True once no more repositories are scanned (time is up, or the count is reached). */
  get ended(): boolean {
    if (!this.#ended && Date.now() >= this.#deadline) this.#end('time');
    return this.#ended;
  }

  /** How many more repositories may be scanned. */
  get repositoriesLeft(): number {
    return this.limits.maxRepositories - this.#repositories;
  }

  /** Throws `ABORTED` when the caller's signal has fired. */
  throwIfAborted(): void {
    if (this.#caller?.aborted) throw abortedError(this.#caller);
  }

  /** Counts a directory about to be read or probed; false when looking is over. */
  visitDirectory(): boolean {
    if (this.ended || !this.#looking) return false;
    if (this.#directories >= this.limits.maxDirectories) {
      this.#looking = false;
      this.#record('directories');
      return false;
    }
    this.#directories += 1;
    return true;
  }

  /**
   * Counts a repository `depth` segments below the directory asked about that is about to be
   * scanned; false when it must not be (too deep: the next one may be; or {@link ended}).
   */
  enterRepository(depth: number): boolean {
    if (this.ended) return false;
    if (depth > this.limits.maxDepth) {
      this.prune();
      return false;
    }
    if (this.#repositories >= this.limits.maxRepositories) {
      this.#end('repositories');
      return false;
    }
    this.#repositories += 1;
    return true;
  }

  /** Records that something below `maxDepth` was left out. */
  prune(): void {
    this.#truncated ??= 'depth';
  }

  /**
   * True when `error`, thrown by a nested scan, is the deadline stopping it (the search then
   * ends); false for the caller's abort and for real failures.
   */
  timedOut(error: unknown): boolean {
    if (!WorkspaceError.isInstance(error, 'ABORTED') || this.#caller?.aborted) return false;
    this.#end('time');
    return true;
  }

  #end(reason: GitChangesTruncation): void {
    this.#ended = true;
    this.#record(reason);
  }

  #record(reason: GitChangesTruncation): void {
    if (this.#truncated === undefined || this.#truncated === 'depth') this.#truncated = reason;
  }
}
