// CSI sequences (colours, cursor moves) and OSC sequences (titles, links), as IPython writes them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point.
const ANSI_ESCAPE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** `text` without ANSI escape sequences (IPython colours its tracebacks). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_ESCAPE, '');
}
