import type { ImageProgressListener } from '../image/image-progress.js';

/** Prints image progress to a stream; see {@link createProgressPrinter}. */
export interface ProgressPrinter {
  onProgress: ImageProgressListener;
  /** Clears the updating line (TTY) before other output. */
  close(): void;
}

/** Erases the current terminal line. */
const CLEAR_LINE = '\r\x1b[2K';

/**
 * Steps, `cached` and `done` events become lines of their own. Output lines of a step update a
 * single line on a TTY (cut to the terminal width) and are printed indented otherwise.
 */
export function createProgressPrinter(stream: NodeJS.WriteStream): ProgressPrinter {
  let transient = false;
  const clear = (): void => {
    if (transient) stream.write(CLEAR_LINE);
    transient = false;
  };
  return {
    onProgress: ({ type, message }) => {
      const text = message.replace(/\s+$/, '');
      if (type !== 'log') {
        clear();
        stream.write(`${type === 'step' ? '==> ' : ''}${text}\n`);
      } else if (stream.isTTY) {
        const width = Math.max(20, (stream.columns || 80) - 1);
        stream.write(`${CLEAR_LINE}  ${text.replace(/[\r\n\t]/g, ' ').slice(0, width - 2)}`);
        transient = true;
      } else {
        stream.write(`  ${text}\n`);
      }
    },
    close: clear,
  };
}
