/** One diagnostic of `tsc --pretty false`. */
export interface TscDiagnostic {
  /** The file as tsc names it, relative to the project. */
  file: string;
  line: number;
  column: number;
  /** `error TS2304: Cannot find name 'image'.` and its indented continuation lines. */
  message: string;
}

/** What {@link parseTscDiagnostics} found. */
export interface ParsedTscOutput {
  diagnostics: TscDiagnostic[];
  /** Lines that belong to no file, e.g. a tsconfig error. */
  other: string[];
}

/** Splits the output of `tsc --pretty false` into diagnostics per file position. */
export function parseTscDiagnostics(output: string): ParsedTscOutput {
  const diagnostics: TscDiagnostic[] = [];
  const other: string[] = [];
  for (const text of output.split('\n')) {
    const located = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(text);
    const last = diagnostics.at(-1);
    if (located !== null) {
      const [, file = '', line = '', column = '', message = ''] = located;
      diagnostics.push({ file, line: Number(line), column: Number(column), message });
    } else if (/^\s/.test(text) && last !== undefined && text.trim() !== '') {
      last.message += `\n${text}`;
    } else if (text.trim() !== '') {
      other.push(text);
    }
  }
  return { diagnostics, other };
}
