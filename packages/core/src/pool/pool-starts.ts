import type { Workspace } from '../workspace/workspace.js';
import { runPoolHook } from './run-pool-hook.js';
import type {
  CreatePooledWorkspaceOptions,
  PooledWorkspaceHookOptions,
} from './workspace-pool-options.js';

/** How one start ended: a workspace, or the reason it failed. */
export type PoolStartOutcome<W extends Workspace> =
  | { ok: true; workspace: W; startMs: number }
  | { ok: false; failure: unknown };

/** Options of {@link PoolStarts}. */
export interface PoolStartsOptions<W extends Workspace> {
  create: (options: CreatePooledWorkspaceOptions) => Promise<W>;
  /** Runs after `create`, within `warmUpTimeoutMs`; a failure closes the workspace and fails the start. */
  warmUp: ((workspace: W, options: PooledWorkspaceHookOptions) => Promise<void>) | undefined;
  warmUpTimeoutMs: number;
  /** Called once per start, after it left the set; never throws into the start. */
  settled: (outcome: PoolStartOutcome<W>) => void;
}

/** One start in flight. */
interface PoolStart {
  controller: AbortController;
  /** Started to keep `min` warm (rather than for a waiting acquire). */
  refill: boolean;
}

/** The starts a pool has in flight, each abortable, each reported once through `settled`. */
export class PoolStarts<W extends Workspace> {
  readonly #starts = new Set<PoolStart>();
  readonly #options: PoolStartsOptions<W>;

  constructor(options: PoolStartsOptions<W>) {
    this.#options = options;
  }

  /** Starts in flight. */
  get size(): number {
    return this.#starts.size;
  }

  /** Background starts (toward `min`) in flight. */
  get refills(): number {
    let count = 0;
    for (const start of this.#starts) if (start.refill) count++;
    return count;
  }

  /** Begins a start. A factory that returns no workspace counts as failed. */
  begin({ refill }: { refill: boolean }): void {
    const start: PoolStart = { controller: new AbortController(), refill };
    this.#starts.add(start);
    const began = performance.now();
    void (async () => {
      let outcome: PoolStartOutcome<W>;
      try {
        const workspace = await this.#options.create({ signal: start.controller.signal });
        if (typeof workspace?.close !== 'function') {
          throw new TypeError('the pool create() factory resolved without a workspace');
        }
        await this.#warmUp(workspace, start.controller.signal);
        outcome = { ok: true, workspace, startMs: performance.now() - began };
      } catch (failure) {
        outcome = { ok: false, failure };
      }
      this.#starts.delete(start);
      this.#options.settled(outcome);
    })();
  }

  /** Runs `warmUp`; when it fails, closes the workspace and rethrows. */
  async #warmUp(workspace: W, signal: AbortSignal): Promise<void> {
    const { warmUp, warmUpTimeoutMs } = this.#options;
    if (!warmUp) return;
    try {
      await runPoolHook((options) => warmUp(workspace, options), {
        timeoutMs: warmUpTimeoutMs,
        signal,
      });
    } catch (error) {
      await workspace.close().catch(() => {});
      throw error;
    }
  }

  /** Aborts every start in flight with `reason`; each still reports through `settled`. */
  abortAll(reason: unknown): void {
    for (const start of this.#starts) start.controller.abort(reason);
  }
}
