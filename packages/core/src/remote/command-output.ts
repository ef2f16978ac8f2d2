import type { CommandResult } from '@agent-workspace/protocol';
import { OutputCapture } from '../internal/output/output-capture.js';

/** Options of {@link CommandOutput}. */
export interface CommandOutputOptions {
  /** Cap on kept bytes per stream; the tail is kept. */
  maxBytes: number;
  onStdout?: ((chunk: string) => void) | undefined;
  onStderr?: ((chunk: string) => void) | undefined;
}

/**
 * Collects the text output of a remote command: forwards each chunk to its callback as it
 * arrives and keeps the last `maxBytes` UTF-8 bytes of each stream, with the same
 * `[... N bytes truncated ...]` marker as `LocalWorkspace`.
 */
export class CommandOutput {
  readonly #stdout: OutputCapture;
  readonly #stderr: OutputCapture;
  readonly #onStdout: ((chunk: string) => void) | undefined;
  readonly #onStderr: ((chunk: string) => void) | undefined;

  constructor({ maxBytes, onStdout, onStderr }: CommandOutputOptions) {
    this.#stdout = new OutputCapture(maxBytes);
    this.#stderr = new OutputCapture(maxBytes);
    this.#onStdout = onStdout;
    this.#onStderr = onStderr;
  }

  /** Records a chunk and forwards it; an error thrown by the callback propagates. */
  write(stream: 'stdout' | 'stderr', text: string): void {
    if (text.length === 0) return;
    const bytes = Buffer.from(text, 'utf8');
    if (stream === 'stdout') {
      this.#stdout.write(bytes);
      this.#onStdout?.(text);
    } else {
      this.#stderr.write(bytes);
      this.#onStderr?.(text);
    }
  }

  /** The command's result with the output kept so far. */
  result(outcome: Omit<CommandResult, 'stdout' | 'stderr'>): CommandResult {
    return { ...outcome, stdout: this.#stdout.text(), stderr: this.#stderr.text() };
  }
}
