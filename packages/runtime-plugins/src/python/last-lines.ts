/** The last `count` lines of `text` (a kernel's stderr, for messages and logs). */
export function lastLines(text: string, count: number): string {
  return text.split('\n').slice(-count).join('\n');
}
