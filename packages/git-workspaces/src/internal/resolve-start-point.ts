import { runGitRetryingLocks } from './retry-git-lock.js';
import type { GitCallResult } from './run-git.js';
import { shareInFlight } from './share-in-flight.js';

/** Default bound of the fetch of the default branch, in milliseconds. */
export const DEFAULT_FETCH_TIMEOUT_MS = 60_000;

/** Input of {@link resolveStartPoint}. */
export interface ResolveStartPointOptions {
  /** The project repository. */
  projectPath: string;
  defaultBranch: string;
  /** The project's `remote.origin.url`, `undefined` when it has no `origin`. */
  originUrl: string | undefined;
  /** Fetch first; `undefined`: when the project has a remote `origin`. */
  fetch?: boolean | undefined;
  /** Bound of the fetch. Default {@link DEFAULT_FETCH_TIMEOUT_MS}. */
  fetchTimeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Where a new branch starts. */
export interface StartPoint {
  /** `'origin'` when the fetch succeeded (start from `origin/<defaultBranch>`), else `'local'`. */
  from: 'origin' | 'local';
  /** The project's `remote.origin.url`, when it has one. */
  originUrl: string | undefined;
  /** Why it is not the fresh remote branch though a fetch was asked for (or defaulted on). */
  warnings: string[];
}

/**
 * Decides where a new branch starts. With `fetch` (default: when the project has a remote
 * `origin`), fetches `<defaultBranch>` from `origin` into the project's
 * `refs/remotes/origin/<defaultBranch>` (parallel calls for one project and branch share one
 * fetch) and starts there; an offline or failing fetch falls back to the local default branch
 * with a warning, never silently. Rejects only with `ABORTED`.
 */
export async function resolveStartPoint(options: ResolveStartPointOptions): Promise<StartPoint> {
  const { projectPath, defaultBranch, originUrl, signal } = options;
  const fetch = options.fetch ?? originUrl !== undefined;
  if (!fetch) return { from: 'local', originUrl, warnings: [] };
  if (originUrl === undefined) {
    return {
      from: 'local',
      originUrl,
      warnings: [
        `fetch skipped: ${projectPath} has no remote "origin"; branched from the local ${defaultBranch}`,
      ],
    };
  }
  const args = [
    'fetch',
    '--quiet',
    '--no-tags',
    '--no-write-fetch-head',
    'origin',
    `+refs/heads/${defaultBranch}:refs/remotes/origin/${defaultBranch}`,
  ];
  const result = await shareInFlight(
    `fetch\0${projectPath}\0${defaultBranch}`,
    () =>
      runGitRetryingLocks(args, {
        cwd: projectPath,
        timeoutMs: options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
      }).catch(
        (error: unknown): GitCallResult => ({
          exitCode: -1,
          stdout: '',
          stderr: (error as Error).message,
        }),
      ),
    signal,
  );
  if (result.exitCode === 0) return { from: 'origin', originUrl, warnings: [] };
  const reason = result.stderr.trim().split('\n').pop() || `exit ${result.exitCode}`;
  return {
    from: 'local',
    originUrl,
    warnings: [
      `fetch of ${defaultBranch} from origin (${originUrl}) failed: ${reason}; branched from the local ${defaultBranch}, which may be stale`,
    ],
  };
}
