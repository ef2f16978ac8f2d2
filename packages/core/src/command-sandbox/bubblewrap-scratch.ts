import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxScratch } from '../workspace/command-sandbox.js';
import { SCRATCH_MOUNT_POINT } from './bubblewrap-arguments.js';

/**
 * A scratch of a {@link BubblewrapSandbox}: a directory of the sandbox's scratch root on the
 * host, seen at {@link SCRATCH_MOUNT_POINT} by the launches wrapped with it.
 */
export class BubblewrapScratch implements SandboxScratch {
  readonly path = SCRATCH_MOUNT_POINT;
  /** Its directory's name in the scratch root. */
  readonly name: string;
  readonly #hostPath: string;
  #removing: Promise<void> | undefined;

  private constructor(hostPath: string) {
    this.#hostPath = hostPath;
    this.name = path.basename(hostPath);
  }

  /** Makes an empty directory (mode 0700) in `scratchRoot`, the host directory of the scratches. */
  static async create(scratchRoot: string): Promise<BubblewrapScratch> {
    return new BubblewrapScratch(await mkdtemp(path.join(scratchRoot, 'scratch-')));
  }

  /** Whether {@link BubblewrapScratch.remove} was called. */
  get removed(): boolean {
    return this.#removing !== undefined;
  }

  remove(): Promise<void> {
    this.#removing ??= rm(this.#hostPath, { recursive: true, force: true });
    return this.#removing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.remove();
  }
}
