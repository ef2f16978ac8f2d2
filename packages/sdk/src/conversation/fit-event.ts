import type {
  AgentErrorEventWire,
  ConversationErrorEventWire,
  ConversationEventWire,
} from '@agent-workspace/protocol';

/** `code` of the `ConversationErrorEvent` that stands for an event no cut could make fit. */
export const EVENT_TOO_LARGE = 'EventTooLarge';

/** An event as a conversation keeps it: its JSON line and the line's size. */
export interface FittedEvent {
  event: ConversationEventWire;
  /** The event's JSON, without a newline. */
  line: string;
  /** UTF-8 bytes of the line with its newline. */
  bytes: number;
  /** Bytes the event lost to fit (0 when it fitted as it was). */
  cutBytes: number;
}

/** Fewest characters a cut string keeps, so that its start and its end stay readable. */
const MIN_KEPT_CHARS = 512;

/** Longest string of an event that replaces one no cut could make fit. */
const MAX_REPLACEMENT_CHARS = 256;

const MAX_ROUNDS = 8;

/** A string in an event: where it is and its size as JSON. */
interface StringLeaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  value: string;
  jsonBytes: number;
}

/**
 * `event` with its JSON line when the line (with its newline) fits in `maxBytes`. Otherwise a
 * copy whose longest strings keep their head and tail around a marker saying how many bytes were
 * cut (`[... 1048576 bytes cut: the event was larger than 262144 bytes ...]`), longest first,
 * until it fits. An event that still does not fit (thousands of short strings) is replaced by an
 * `AgentErrorEvent` for the same tool call (an observation) or a `ConversationErrorEvent`
 * {@link EVENT_TOO_LARGE} saying so: an event is never dropped silently.
 */
export function fitEvent(event: ConversationEventWire, maxBytes: number): FittedEvent {
  const line = JSON.stringify(event);
  const bytes = Buffer.byteLength(line) + 1;
  if (bytes <= maxBytes) return { event, line, bytes, cutBytes: 0 };
  const fitted = cutStrings(line, bytes, maxBytes) ?? replace(event, bytes, maxBytes);
  return { ...fitted, cutBytes: bytes - fitted.bytes };
}

function cutStrings(
  line: string,
  bytes: number,
  maxBytes: number,
): Omit<FittedEvent, 'cutBytes'> | undefined {
  const copy = JSON.parse(line) as ConversationEventWire;
  const leaves = stringLeaves(copy).sort((a, b) => b.jsonBytes - a.jsonBytes);
  let reduction = bytes - maxBytes;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    for (const leaf of leaves) set(leaf, leaf.value);
    let left = reduction;
    for (const leaf of leaves) {
      if (left <= 0) break;
      const cut = cutString(leaf, left, maxBytes);
      if (cut === undefined) break; // the rest are shorter still
      set(leaf, cut.text);
      left -= cut.saved;
    }
    const candidate = JSON.stringify(copy);
    const candidateBytes = Buffer.byteLength(candidate) + 1;
    if (candidateBytes <= maxBytes) return { event: copy, line: candidate, bytes: candidateBytes };
    if (left > 0) return undefined;
    // Estimates of escaped and multi-byte text were short: ask for the difference too.
    reduction += candidateBytes - maxBytes + 64;
  }
  return undefined;
}

/** `leaf.value` shortened to save about `want` bytes of JSON, or `undefined` if it is too short. */
function cutString(
  leaf: StringLeaf,
  want: number,
  maxBytes: number,
): { text: string; saved: number } | undefined {
  const { value, jsonBytes } = leaf;
  if (value.length <= MIN_KEPT_CHARS) return undefined;
  const perChar = jsonBytes / value.length;
  const markerBytes = marker(Buffer.byteLength(value), maxBytes).length + 8;
  const keep = Math.max(MIN_KEPT_CHARS, Math.floor((jsonBytes - want - markerBytes) / perChar));
  if (keep >= value.length) return undefined;
  let head = Math.ceil(keep / 2);
  let tailStart = value.length - (keep - head);
  if (isLowSurrogate(value.charCodeAt(head))) head -= 1;
  if (isLowSurrogate(value.charCodeAt(tailStart))) tailStart += 1;
  const kept = value.slice(0, head);
  const tail = value.slice(tailStart);
  const cut = Buffer.byteLength(value) - Buffer.byteLength(kept) - Buffer.byteLength(tail);
  const text = `${kept}${marker(cut, maxBytes)}${tail}`;
  return { text, saved: jsonBytes - jsonSize(text) };
}

function marker(cutBytes: number, maxBytes: number): string {
  return `\n[... ${cutBytes} bytes cut: the event was larger than ${maxBytes} bytes ...]\n`;
}

/** What stands for an event no cut could make fit. */
function replace(
  event: ConversationEventWire,
  bytes: number,
  maxBytes: number,
): Omit<FittedEvent, 'cutBytes'> {
  const note = `This ${short(event.kind)} of ${bytes} bytes was larger than ${maxBytes} bytes and could not be cut to fit; it was replaced by this event.`;
  const base = { id: short(event.id), timestamp: short(event.timestamp) };
  const replacement: AgentErrorEventWire | ConversationErrorEventWire =
    event.kind === 'ObservationEvent'
      ? {
          kind: 'AgentErrorEvent',
          ...base,
          source: 'agent',
          error: note,
          tool_name: short(event.tool_name),
          tool_call_id: short(event.tool_call_id),
        }
      : {
          kind: 'ConversationErrorEvent',
          ...base,
          source: 'environment',
          code: EVENT_TOO_LARGE,
          detail: note,
        };
  const line = JSON.stringify(replacement);
  return { event: replacement, line, bytes: Buffer.byteLength(line) + 1 };
}

function short(text: string): string {
  return text.slice(0, MAX_REPLACEMENT_CHARS);
}

/** Every string value in `root` (not keys), found without recursion. */
function stringLeaves(root: unknown): StringLeaf[] {
  const leaves: StringLeaf[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    const holder = node as Record<string, unknown> | unknown[];
    for (const [key, value] of Object.entries(holder)) {
      if (typeof value === 'string') {
        const index = Array.isArray(holder) ? Number(key) : key;
        leaves.push({ holder, key: index, value, jsonBytes: jsonSize(value) });
      } else if (typeof value === 'object' && value !== null) {
        stack.push(value);
      }
    }
  }
  return leaves;
}

function set(leaf: StringLeaf, text: string): void {
  (leaf.holder as Record<string | number, unknown>)[leaf.key] = text;
}

function jsonSize(text: string): number {
  return Buffer.byteLength(JSON.stringify(text));
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
