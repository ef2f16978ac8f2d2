import type { OutputStreamMasker } from '@agent-workspace/core';

/** Output of a command's two streams, as a bash output event carries it. */
export interface MaskedOutput {
  stdout: string | null;
  stderr: string | null;
}

/**
 * Masks a command's stdout and stderr (e.g. a conversation's secrets) before they are stored
 * or published, each stream on its own so a value split across chunks is masked too. Without
 * a masker factory the output passes as it is.
 */
export class CommandOutputMasking {
  readonly #maskers: Record<'stdout' | 'stderr', OutputStreamMasker> | undefined;

  constructor(masker: (() => OutputStreamMasker) | undefined) {
    this.#maskers = masker && { stdout: masker(), stderr: masker() };
  }

  /** The text of `chunk` that can be published now (`''` while a possible match is held back). */
  push(stream: 'stdout' | 'stderr', chunk: string): string {
    return this.#maskers ? this.#maskers[stream].push(chunk) : chunk;
  }

  /** What the maskers held back, at the command's end; `undefined` when there is none. */
  flush(): MaskedOutput | undefined {
    if (!this.#maskers) return undefined;
    const stdout = this.#maskers.stdout.flush();
    const stderr = this.#maskers.stderr.flush();
    if (stdout === '' && stderr === '') return undefined;
    return { stdout: stdout || null, stderr: stderr || null };
  }
}
