/**
 * `text` cut to at most `maxChars` characters plus a marker line that says how much was left out,
 * or `text` itself when it fits.
 */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n\n[... truncated: showing the first ${maxChars} of ${text.length} characters]`;
}
