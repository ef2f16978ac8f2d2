import { rm } from 'node:fs/promises';
import { TempDirWorkspace } from './temp-dir-workspace.js';

/** Options of {@link StartGate}. */
export interface StartGateOptions {
  /** Where the members' directories go. */
  root: string;
  /** When true, the factory ignores its signal (a start the pool cannot abort). */
  ignoreSignal?: boolean;
}

/**
 * A pool `create` factory whose starts make their directory, then hold until the test opens
 * them. An aborted start removes its directory and rejects, as `startOrClose` does.
 */
export class StartGate {
  readonly #options: StartGateOptions;
  readonly #held: Array<() => void> = [];
  /** Starts begun. */
  calls = 0;
  /** Starts that saw their signal fire. */
  aborted = 0;

  constructor(options: StartGateOptions) {
    this.#options = options;
  }

  /** Starts being held now. */
  get held(): number {
    return this.#held.length;
  }

  /** The factory to give the pool. */
  readonly create = async ({ signal }: { signal: AbortSignal }): Promise<TempDirWorkspace> => {
    this.calls++;
    const workspace = await TempDirWorkspace.start({ root: this.#options.root });
    await new Promise<void>((resolve, reject) => {
      this.#held.push(resolve);
      if (this.#options.ignoreSignal) return;
      signal.addEventListener(
        'abort',
        () => {
          this.aborted++;
          this.#held.splice(this.#held.indexOf(resolve), 1);
          rm(workspace.workingDir, { recursive: true, force: true }).then(
            () => reject(signal.reason),
            reject,
          );
        },
        { once: true },
      );
    });
    return workspace;
  };

  /** Lets the first `count` held starts finish. */
  open(count = 1): void {
    for (const resolve of this.#held.splice(0, count)) resolve();
  }
}
