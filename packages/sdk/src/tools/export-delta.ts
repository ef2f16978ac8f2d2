/** One `declare -x NAME="value"` (or bare `declare -x NAME`) entry of bash's `export -p`. */
interface ExportEntry {
  name: string;
  /** The entry as printed, newline included. */
  text: string;
}

/** What restores `saved` on top of a shell that starts with `fresh`. */
export interface ExportDelta {
  /** Exported variable names of `fresh` that `saved` does not have. */
  unset: string[];
  /** The entries of `saved` that `fresh` does not have as they are (an `export -p` text). */
  restore: string;
}

/**
 * The difference between two `export -p` texts of bash: the names to unset and the entries to
 * evaluate so that a shell that starts with `fresh` exports what `saved` held. `undefined` when
 * either text is not `export -p` output as bash prints it (the caller then restores everything).
 */
export function exportDelta(fresh: string, saved: string): ExportDelta | undefined {
  const before = parseExports(fresh);
  const after = parseExports(saved);
  if (before === undefined || after === undefined) return undefined;
  const kept = new Map(before.map((entry) => [entry.name, entry.text]));
  const names = new Set(after.map((entry) => entry.name));
  return {
    unset: before.filter((entry) => !names.has(entry.name)).map((entry) => entry.name),
    restore: after
      .filter((entry) => kept.get(entry.name) !== entry.text)
      .map((entry) => entry.text)
      .join(''),
  };
}

const PREFIX = 'declare -x ';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** The entries of an `export -p` text, or `undefined` when it is not one. */
function parseExports(text: string): ExportEntry[] | undefined {
  const entries: ExportEntry[] = [];
  let at = 0;
  while (at < text.length) {
    if (!text.startsWith(PREFIX, at)) return undefined;
    const name = NAME.exec(text.slice(at + PREFIX.length, at + PREFIX.length + 256))?.[0];
    if (name === undefined) return undefined;
    let end = at + PREFIX.length + name.length;
    // A value in double quotes, or in `$'…'` (control characters): a backslash escapes the
    // next character in both.
    const quote = text.startsWith('="', end) ? '"' : text.startsWith("=$'", end) ? "'" : '';
    if (quote !== '') {
      end += quote === '"' ? 2 : 3;
      while (end < text.length && text[end] !== quote) end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) return undefined;
      end += 1;
    }
    if (text[end] !== '\n') return undefined;
    entries.push({ name, text: text.slice(at, end + 1) });
    at = end + 1;
  }
  return entries;
}
