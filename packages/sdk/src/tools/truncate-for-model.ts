/**
 * Longest text, in UTF-16 code units, a tool shows the model in one observation (OpenHands'
 * terminal limit). Longer text keeps its head and tail around a `<response clipped ...>` marker;
 * the observation's `content` keeps the full text.
 */
export const MAX_MODEL_TEXT_CHARS = 30_000;

/** Options of {@link truncateForModel}. */
export interface TruncateForModelOptions {
  /** Longest result, marker included; default {@link MAX_MODEL_TEXT_CHARS}. */
  maxChars?: number | undefined;
  /** A sentence added to the marker, e.g. how to see the rest. */
  hint?: string | undefined;
}

/**
 * `text` when it fits in `maxChars`; otherwise its head and tail (half each, never splitting a
 * surrogate pair) around `<response clipped: N characters omitted ...>`. The one truncation
 * every tool uses for what the model sees.
 *
 * @example
 * ```ts
 * truncateForModel('x'.repeat(100_000)); // 'xxx…\n<response clipped: 70048 characters omitted.>\nxxx…'
 * ```
 */
export function truncateForModel(text: string, options: TruncateForModelOptions = {}): string {
  const maxChars = options.maxChars ?? MAX_MODEL_TEXT_CHARS;
  if (text.length <= maxChars) return text;
  const hint = options.hint === undefined ? '' : ` ${options.hint}`;
  // The count in the marker changes its length; size it for the largest count possible.
  const markerLength = marker(text.length, hint).length;
  const kept = Math.max(0, maxChars - markerLength);
  let head = Math.ceil(kept / 2);
  let tailStart = text.length - (kept - head);
  if (isLowSurrogate(text.charCodeAt(head))) head -= 1;
  if (isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  return `${text.slice(0, head)}${marker(tailStart - head, hint)}${text.slice(tailStart)}`;
}

function marker(omitted: number, hint: string): string {
  return `\n<response clipped: ${omitted} characters omitted.${hint}>\n`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
