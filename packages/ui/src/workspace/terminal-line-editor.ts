/** What a person's keys did to the line being typed, in the order they did it. */
export type LineEditEffect =
  /** Text to write to the screen (the local echo). */
  | { readonly kind: 'echo'; readonly text: string }
  /** A line was entered (without its newline). */
  | { readonly kind: 'line'; readonly text: string }
  /** Ctrl+C: the line was dropped; stop what runs. */
  | { readonly kind: 'interrupt' }
  /** Ctrl+D on an empty line: end of input. */
  | { readonly kind: 'eof' };

/** Options of {@link LineEditor}. */
export interface LineEditorOptions {
  /** Entered lines kept for Up/Down; default 200. */
  readonly maxHistory?: number;
}

const ERASE = '\b \b';
/** Up and Down, in normal and application cursor mode. */
const HISTORY_KEYS: Record<string, -1 | 1> = {
  '\x1b[A': -1,
  '\x1bOA': -1,
  '\x1b[B': 1,
  '\x1bOB': 1,
};
/** The rest of an escape sequence after ESC: CSI, SS3, or one character. */
const ESCAPE_REST = /^(?:\[[0-9;?]*[@-~]|O.|.)?/s;

/**
 * The line editing of a line-mode terminal (there is no PTY): it turns the terminal's input
 * (xterm's `onData`: typed keys and pasted text) into a local echo and entered lines. Printable
 * characters are appended; Backspace and Ctrl+U erase; Enter (or a pasted newline) enters the
 * line; Up/Down walk the history; Ctrl+C drops the line; Ctrl+D on an empty line is end of input.
 * Other keys (Tab, Left/Right, function keys) are ignored.
 */
export class LineEditor {
  readonly #maxHistory: number;
  /** The line typed so far, as code points. */
  #chars: string[] = [];
  readonly #history: string[] = [];
  /** Position in the history; `#history.length` while editing a new line. */
  #historyIndex = 0;
  /** The new line put aside while walking the history. */
  #draft = '';

  constructor(options: LineEditorOptions = {}) {
    this.#maxHistory = options.maxHistory ?? 200;
  }

  /** The line typed so far. */
  get line(): string {
    return this.#chars.join('');
  }

  /** Applies the terminal's input `data`; echoes are merged where adjacent. */
  input(data: string): LineEditEffect[] {
    const effects: LineEditEffect[] = [];
    const echo = (text: string): void => {
      const last = effects.at(-1);
      if (last?.kind === 'echo')
        effects[effects.length - 1] = { kind: 'echo', text: last.text + text };
      else if (text) effects.push({ kind: 'echo', text });
    };
    let index = 0;
    while (index < data.length) {
      const char = data[index] as string;
      if (char === '\x1b') {
        const sequence = char + (ESCAPE_REST.exec(data.slice(index + 1))?.[0] ?? '');
        index += sequence.length;
        const step = HISTORY_KEYS[sequence];
        if (step) echo(this.#walkHistory(step));
        continue;
      }
      const code = data.codePointAt(index) ?? 0;
      const point = String.fromCodePoint(code);
      index += point.length;
      if (char === '\r' || char === '\n') {
        if (char === '\r' && data[index] === '\n') index++;
        echo('\r\n');
        effects.push({ kind: 'line', text: this.#enter() });
      } else if (char === '\x7f' || char === '\b') {
        if (this.#chars.pop() !== undefined) echo(ERASE);
      } else if (char === '\x15') {
        echo(ERASE.repeat(this.#chars.length));
        this.#chars = [];
      } else if (char === '\x03') {
        echo('^C\r\n');
        this.#reset();
        effects.push({ kind: 'interrupt' });
      } else if (char === '\x04') {
        if (this.#chars.length === 0) effects.push({ kind: 'eof' });
      } else if (code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code < 0xa0)) {
        this.#chars.push(point);
        echo(point);
      }
    }
    return effects;
  }

  /** Ends the line: returns it, keeps it in the history (unless empty or a repeat), starts anew. */
  #enter(): string {
    const line = this.line;
    if (line.trim() && this.#history.at(-1) !== line) {
      this.#history.push(line);
      if (this.#history.length > this.#maxHistory) this.#history.shift();
    }
    this.#reset();
    return line;
  }

  #reset(): void {
    this.#chars = [];
    this.#historyIndex = this.#history.length;
    this.#draft = '';
  }

  /** Moves through the history and returns the echo that replaces the shown line. */
  #walkHistory(step: -1 | 1): string {
    const target = this.#historyIndex + step;
    if (target < 0 || target > this.#history.length) return '';
    if (this.#historyIndex === this.#history.length) this.#draft = this.line;
    this.#historyIndex = target;
    const erase = ERASE.repeat(this.#chars.length);
    const line = target === this.#history.length ? this.#draft : (this.#history[target] as string);
    this.#chars = Array.from(line);
    return erase + line;
  }
}
