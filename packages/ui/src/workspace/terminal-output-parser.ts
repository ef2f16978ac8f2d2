/** The OSC number of the marks the terminal's shell prints (see `TERMINAL_SHELL_SCRIPT`). */
export const SHELL_MARK_OSC = 6973;

const PREFIX = `\x1b]${SHELL_MARK_OSC};`;
const END = '\x07';
/** A mark longer than this is not one: its text is shown as is. */
const MAX_MARK_LENGTH = 8192;

/** A mark of the terminal's shell: it is ready for a line, or has run one. */
export interface ShellMark {
  /** `ready` once when the shell starts; `done` after each line it ran. */
  readonly kind: 'ready' | 'done';
  /** Exit status of the line (0 for `ready`). */
  readonly exitCode: number;
  /** The shell's working directory afterwards. */
  readonly cwd: string;
}

/** A piece of the shell's stdout: text to show, or a mark. */
export type ShellOutputPart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'mark'; readonly mark: ShellMark };

/**
 * Splits the terminal shell's stdout into text and marks
 * (`ESC ] 6973 ; ready|done ; <status> ; <cwd> BEL`), across chunk boundaries: a chunk that ends
 * inside a mark (or inside what may begin one) is held back until the next chunk.
 */
export class TerminalOutputParser {
  #pending = '';

  /** The parts of `chunk` (after what was held back). */
  push(chunk: string): ShellOutputPart[] {
    let buffer = this.#pending + chunk;
    this.#pending = '';
    const parts: ShellOutputPart[] = [];
    const text = (value: string): void => {
      if (value) parts.push({ kind: 'text', text: value });
    };
    for (;;) {
      const start = buffer.indexOf(PREFIX);
      if (start < 0) {
        const keep = partialPrefixLength(buffer);
        text(buffer.slice(0, buffer.length - keep));
        this.#pending = buffer.slice(buffer.length - keep);
        return parts;
      }
      text(buffer.slice(0, start));
      const end = buffer.indexOf(END, start + PREFIX.length);
      if (end < 0) {
        if (buffer.length - start > MAX_MARK_LENGTH) {
          text(buffer.slice(start));
        } else {
          this.#pending = buffer.slice(start);
        }
        return parts;
      }
      const mark = parseMark(buffer.slice(start + PREFIX.length, end));
      if (mark) parts.push({ kind: 'mark', mark });
      else text(buffer.slice(start, end + 1));
      buffer = buffer.slice(end + 1);
    }
  }

  /** Returns what was held back, as text (the output has ended). */
  flush(): string {
    const rest = this.#pending;
    this.#pending = '';
    return rest;
  }
}

/** `kind;status;cwd`, or `undefined` if it is not a mark. */
function parseMark(body: string): ShellMark | undefined {
  const match = /^(ready|done);(\d{1,3});(.*)$/s.exec(body);
  if (!match) return undefined;
  return {
    kind: match[1] as ShellMark['kind'],
    exitCode: Number(match[2]),
    cwd: match[3] as string,
  };
}

/** Length of the longest end of `text` that is a beginning of the mark prefix. */
function partialPrefixLength(text: string): number {
  for (let length = Math.min(PREFIX.length - 1, text.length); length > 0; length--) {
    if (PREFIX.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
