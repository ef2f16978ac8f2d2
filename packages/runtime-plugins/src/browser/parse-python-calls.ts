/** A Python literal as BrowserGym action arguments are written: a string, number, bool, `None` or list. */
export type PythonValue = string | number | boolean | null | PythonValue[];

/** One call statement: `name(positional, ..., keyword=value, ...)`. */
export interface PythonCall {
  name: string;
  args: PythonValue[];
  /** Keyword arguments, in a prototype-less object. */
  kwargs: Record<string, PythonValue>;
  /** 1-based line the call starts on. */
  line: number;
  /** The call's source text. */
  source: string;
}

/** What {@link parsePythonCalls} answers: the calls, or where and why the text is not valid. */
export type PythonCallsResult =
  | { ok: true; calls: PythonCall[] }
  | { ok: false; line: number; message: string };

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

class SyntaxProblem extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Parses statements of function calls whose arguments are Python literals — the subset of Python
 * BrowserGym actions are written in: one call per line (or separated by `;`), calls may span
 * lines inside brackets, `#` comments and blank lines are skipped. Strings take `'`, `"`, triple
 * quotes, an `r` prefix, Python's escapes and adjacent-literal concatenation; numbers may be signed
 * ints or floats; `True`, `False`, `None`, lists and tuples (read as lists) are understood.
 * Anything else (expressions, variables, attribute calls) is a syntax problem.
 */
export function parsePythonCalls(source: string): PythonCallsResult {
  const parser = new CallParser(source);
  try {
    return { ok: true, calls: parser.parseProgram() };
  } catch (error) {
    if (!(error instanceof SyntaxProblem)) throw error;
    return { ok: false, line: lineOf(source, error.offset), message: error.message };
  }
}

function lineOf(source: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset && index < source.length; index++) {
    if (source[index] === '\n') line++;
  }
  return line;
}

class CallParser {
  #pos = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  parseProgram(): PythonCall[] {
    const calls: PythonCall[] = [];
    for (;;) {
      this.#skipSpace(true);
      if (this.#pos >= this.#text.length) return calls;
      if (this.#peek() === ';') {
        this.#pos++;
        continue;
      }
      calls.push(this.#parseCall());
      this.#skipSpace(false);
      const next = this.#peek();
      if (next === ';' || next === '\n' || next === '\r') this.#pos++;
      else if (next !== undefined)
        throw this.#problem(`unexpected ${describe(next)} after the call`);
    }
  }

  #parseCall(): PythonCall {
    const start = this.#pos;
    const name = this.#identifier();
    if (name === undefined) {
      throw this.#problem(`expected a function call such as click("12"), found ${this.#found()}`);
    }
    this.#skipSpace(false);
    if (this.#peek() !== '(') {
      throw this.#problem(`expected "(" after ${name}, found ${this.#found()}`);
    }
    this.#pos++;
    const args: PythonValue[] = [];
    const kwargs: Record<string, PythonValue> = Object.create(null);
    for (;;) {
      this.#skipSpace(true);
      if (this.#peek() === ')') break;
      const keyword = this.#keywordName();
      if (keyword !== undefined) {
        if (keyword in kwargs)
          throw this.#problem(`${name}() got keyword argument ${keyword} twice`);
        kwargs[keyword] = this.#parseValue();
      } else {
        if (Object.keys(kwargs).length > 0) {
          throw this.#problem(`${name}(): a positional argument follows a keyword argument`);
        }
        args.push(this.#parseValue());
      }
      this.#skipSpace(true);
      if (this.#peek() === ',') {
        this.#pos++;
        continue;
      }
      if (this.#peek() !== ')') {
        throw this.#problem(
          `expected "," or ")" in the arguments of ${name}(), found ${this.#found()}`,
        );
      }
    }
    this.#pos++;
    return {
      name,
      args,
      kwargs,
      line: lineOf(this.#text, start),
      source: this.#text.slice(start, this.#pos),
    };
  }

  /** `name=` (not `name==`) ahead: consumes it and answers the name. */
  #keywordName(): string | undefined {
    const match = /^([A-Za-z_]\w*)[ \t]*=(?!=)/.exec(this.#text.slice(this.#pos, this.#pos + 200));
    if (!match) return undefined;
    this.#pos += match[0].length;
    return match[1];
  }

  #parseValue(): PythonValue {
    this.#skipSpace(true);
    const char = this.#peek();
    if (char === undefined) throw this.#problem('expected a value, found the end of the text');
    if (char === '[' || char === '(') return this.#parseSequence(char === '[' ? ']' : ')');
    if (/[-+.\d]/.test(char)) return this.#parseNumber();
    if (this.#atString()) return this.#parseStrings();
    const word = this.#identifier();
    if (word === 'True') return true;
    if (word === 'False') return false;
    if (word === 'None') return null;
    if (word !== undefined) {
      throw this.#problem(
        `${word} is not a literal; arguments must be strings, numbers, True, False, None or lists`,
      );
    }
    throw this.#problem(`expected a value, found ${this.#found()}`);
  }

  #parseSequence(close: ']' | ')'): PythonValue {
    const open = this.#pos;
    this.#pos++;
    const items: PythonValue[] = [];
    let sawComma = false;
    for (;;) {
      this.#skipSpace(true);
      if (this.#peek() === close) break;
      if (this.#peek() === undefined) {
        throw new SyntaxProblem(open, `${close === ']' ? '"["' : '"("'} is never closed`);
      }
      items.push(this.#parseValue());
      this.#skipSpace(true);
      if (this.#peek() === ',') {
        sawComma = true;
        this.#pos++;
      } else if (this.#peek() !== close) {
        throw this.#problem(`expected "," or "${close}" in a list, found ${this.#found()}`);
      }
    }
    this.#pos++;
    // `(x)` is only parentheses around x; `(x,)` and `()` are tuples.
    if (close === ')' && items.length === 1 && !sawComma) return items[0] as PythonValue;
    return items;
  }

  #parseNumber(): number {
    const match = /^[-+]?[ \t]*(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?/.exec(
      this.#text.slice(this.#pos, this.#pos + 400),
    );
    if (!match || /[A-Za-z_]/.test(this.#text[this.#pos + match[0].length] ?? '')) {
      throw this.#problem(`expected a number, found ${this.#found()}`);
    }
    this.#pos += match[0].length;
    const value = Number(match[0].replace(/[ \t_]/g, ''));
    if (!Number.isFinite(value)) throw this.#problem(`${match[0]} is not a finite number`);
    return value;
  }

  #atString(): boolean {
    return /^[rRuU]?['"]/.test(this.#text.slice(this.#pos, this.#pos + 2)) || this.#atBadPrefix();
  }

  #atBadPrefix(): boolean {
    return /^(?:[fFbB]|[rR][bBfF]|[bBfF][rR])['"]/.test(this.#text.slice(this.#pos, this.#pos + 3));
  }

  /** One string literal or several adjacent ones, concatenated as Python does. */
  #parseStrings(): string {
    let value = this.#parseString();
    for (;;) {
      const save = this.#pos;
      this.#skipSpace(false);
      if (!this.#atString()) {
        this.#pos = save;
        return value;
      }
      value += this.#parseString();
    }
  }

  #parseString(): string {
    const start = this.#pos;
    if (this.#atBadPrefix()) {
      throw this.#problem('f-strings and bytes literals are not supported; write a plain string');
    }
    let raw = false;
    const prefix = this.#peek() ?? '';
    if (/[rRuU]/.test(prefix)) {
      raw = prefix === 'r' || prefix === 'R';
      this.#pos++;
    }
    const quote = this.#peek() as string;
    const triple = this.#text.startsWith(quote.repeat(3), this.#pos);
    const delimiter = triple ? quote.repeat(3) : quote;
    this.#pos += delimiter.length;
    let value = '';
    for (;;) {
      if (this.#pos >= this.#text.length) throw new SyntaxProblem(start, 'unterminated string');
      if (this.#text.startsWith(delimiter, this.#pos)) {
        this.#pos += delimiter.length;
        return value;
      }
      const char = this.#text[this.#pos] as string;
      if (char === '\n' && !triple) throw new SyntaxProblem(start, 'unterminated string');
      if (char === '\\') {
        value += raw ? this.#rawEscape() : this.#escape();
        continue;
      }
      value += char;
      this.#pos++;
    }
  }

  /** In a raw string a backslash stays, but still keeps the next character from ending it. */
  #rawEscape(): string {
    const pair = this.#text.slice(this.#pos, this.#pos + 2);
    this.#pos += pair.length;
    return pair;
  }

  #escape(): string {
    const escapeStart = this.#pos;
    this.#pos++;
    const char = this.#peek();
    if (char === undefined) throw new SyntaxProblem(escapeStart, 'unterminated string');
    this.#pos++;
    if (char === '\n') return '';
    const simple = SIMPLE_ESCAPES[char];
    if (simple !== undefined) return simple;
    if (/[0-7]/.test(char)) {
      const digits =
        char + (/^[0-7]{0,2}/.exec(this.#text.slice(this.#pos, this.#pos + 2))?.[0] ?? '');
      this.#pos += digits.length - 1;
      return String.fromCodePoint(Number.parseInt(digits, 8));
    }
    const hexLength = char === 'x' ? 2 : char === 'u' ? 4 : char === 'U' ? 8 : 0;
    if (hexLength > 0) {
      const hex = this.#text.slice(this.#pos, this.#pos + hexLength);
      const code = Number.parseInt(hex, 16);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex) || code > 0x10ffff) {
        throw new SyntaxProblem(escapeStart, `bad escape \\${char}${hex}`);
      }
      this.#pos += hexLength;
      return String.fromCodePoint(code);
    }
    if (char === 'N') throw new SyntaxProblem(escapeStart, '\\N{...} escapes are not supported');
    // Python keeps unknown escapes as they are.
    return `\\${char}`;
  }

  #identifier(): string | undefined {
    const match = /^[A-Za-z_]\w*/.exec(this.#text.slice(this.#pos, this.#pos + 200));
    if (!match) return undefined;
    this.#pos += match[0].length;
    return match[0];
  }

  /** Skips spaces, tabs, comments and `\` line continuations; newlines too inside brackets. */
  #skipSpace(newlines: boolean): void {
    for (;;) {
      const char = this.#peek();
      if (char === ' ' || char === '\t' || (newlines && (char === '\n' || char === '\r'))) {
        this.#pos++;
      } else if (char === '#') {
        while (this.#pos < this.#text.length && this.#text[this.#pos] !== '\n') this.#pos++;
      } else if (char === '\\' && /^\\\r?\n/.test(this.#text.slice(this.#pos, this.#pos + 3))) {
        this.#pos += this.#text[this.#pos + 1] === '\r' ? 3 : 2;
      } else {
        return;
      }
    }
  }

  #peek(): string | undefined {
    return this.#text[this.#pos];
  }

  #found(): string {
    const char = this.#peek();
    return char === undefined ? 'the end of the text' : describe(char);
  }

  #problem(message: string): SyntaxProblem {
    return new SyntaxProblem(this.#pos, message);
  }
}

function describe(char: string): string {
  if (char === '\n' || char === '\r') return 'the end of the line';
  return JSON.stringify(char);
}
