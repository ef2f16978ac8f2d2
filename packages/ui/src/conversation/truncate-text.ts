/** Lines shown of a long text until "Show all". */
export const SHOWN_LINES = 30;

/** Characters shown of a long text until "Show all". */
export const SHOWN_CHARS = 4_000;

/** The start of a long text, and how much was left out. */
export interface TruncatedText {
  readonly text: string;
  /** Whether anything was left out. */
  readonly truncated: boolean;
  readonly totalLines: number;
}

/** `text` cut to its first `maxLines` lines and `maxChars` characters. */
export function truncateText(
  text: string,
  { maxLines = SHOWN_LINES, maxChars = SHOWN_CHARS }: { maxLines?: number; maxChars?: number } = {},
): TruncatedText {
  let end = -1;
  let lines = 0;
  while (lines < maxLines) {
    end = text.indexOf('\n', end + 1);
    if (end === -1) break;
    lines++;
  }
  const totalLines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const cut = end === -1 || end === text.length - 1 ? text.length : end;
  const shown = text.slice(0, Math.min(cut, maxChars));
  return { text: shown, truncated: shown.length < text.length, totalLines };
}
