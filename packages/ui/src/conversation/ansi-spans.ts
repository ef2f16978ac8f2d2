import Anser from 'anser';

/** A run of terminal text and the style its ANSI codes gave it. */
export interface AnsiSpan {
  readonly text: string;
  /** CSS colour (`rgb(…)`) of the text, or `undefined` for the default. */
  readonly color?: string;
  readonly background?: string;
  readonly bold?: boolean;
  readonly italic?: boolean;
  readonly underline?: boolean;
  readonly dim?: boolean;
}

/**
 * Terminal output split into styled runs by its ANSI SGR codes (colours, bold, ...); the codes
 * themselves are removed, and the text is never interpreted as markup.
 */
export function ansiSpans(text: string): AnsiSpan[] {
  if (!text.includes('\u001b')) return text ? [{ text }] : [];
  return Anser.ansiToJson(text, { remove_empty: true, use_classes: false }).map((entry) => {
    const fg = entry.fg_truecolor || entry.fg;
    const bg = entry.bg_truecolor || entry.bg;
    const inverted = (entry as { isInverted?: boolean }).isInverted === true;
    const [color, background] = inverted ? [bg, fg] : [fg, bg];
    const decorations = entry.decorations ?? [];
    return {
      text: entry.content,
      ...(color ? { color: `rgb(${color})` } : {}),
      ...(background ? { background: `rgb(${background})` } : {}),
      ...(decorations.includes('bold') ? { bold: true } : {}),
      ...(decorations.includes('italic') ? { italic: true } : {}),
      ...(decorations.includes('underline') ? { underline: true } : {}),
      ...(decorations.includes('dim') ? { dim: true } : {}),
    };
  });
}
