import type { TextContentWire } from '@agent-workspace/protocol';

/** The text parts of wire content (a message's, a thought's, an observation's), joined. */
export function textOfContent(content: readonly unknown[]): string {
  return content
    .filter((part): part is TextContentWire => (part as { type?: unknown }).type === 'text')
    .map((part) => part.text)
    .join('\n');
}
