import { MIN_MASKED_SECRET_CHARS, SECRET_MASK } from '@agent-workspace/protocol';
import { NeedleIndex } from './needle-index.js';

/**
 * Most distinct values one masker remembers (every value a conversation's secrets ever had, and
 * each value a `LookupSecret` fetched). Adding more fails rather than forget one.
 */
export const MAX_MASKED_VALUES = 1000;

/** Bytes of a value's UTF-8 below which its base64 pieces are too short to mask safely. */
const MIN_ENCODED_BYTES = 6;

/** A form of a value to look for: literal text, or base64 that may be broken over lines. */
interface Needle {
  text: string;
  wrapped: boolean;
}

/**
 * Replaces secret values, and simple encodings of them, with {@link SECRET_MASK} in text and in
 * JSON-like values. For each value (at least {@link MIN_MASKED_SECRET_CHARS} characters; shorter
 * ones are ignored) it looks for: the value; its JSON-escaped form; its URL encoding (`%20` and
 * `+` for spaces); its UTF-8 in hex (either case); and its base64 (standard and URL-safe, padded
 * or not, and also the part of it that shows whatever the alignment inside a longer base64
 * stream, e.g. `echo $TOKEN | base64`, even broken over lines as `base64` wraps them).
 * Overlapping matches, of one value or two, are masked as one span.
 */
export class SecretMasker {
  readonly #values = new Set<string>();
  #plain: NeedleIndex | undefined;
  #wrapped: NeedleIndex | undefined;
  #maxMatchChars = 0;

  /** Number of values remembered. */
  get size(): number {
    return this.#values.size;
  }

  /**
   * Longest text one match can span (a wrapped base64 form counts its line breaks): what a
   * {@link SecretStreamMasker} holds back.
   */
  get maxMatchChars(): number {
    this.#compile();
    return this.#maxMatchChars;
  }

  /** Whether `add(value)` would fit (known, short, or room left). */
  canAdd(value: string): boolean {
    return (
      value.length < MIN_MASKED_SECRET_CHARS ||
      this.#values.has(value) ||
      this.#values.size < MAX_MASKED_VALUES
    );
  }

  /** Whether every one of `values` would fit at once. */
  canAddAll(values: readonly string[]): boolean {
    const fresh = new Set(
      values.filter((value) => value.length >= MIN_MASKED_SECRET_CHARS && !this.#values.has(value)),
    );
    return this.#values.size + fresh.size <= MAX_MASKED_VALUES;
  }

  /**
   * Remembers `value` for masking (values shorter than {@link MIN_MASKED_SECRET_CHARS} are not
   * masked). `RangeError` past {@link MAX_MASKED_VALUES} (check {@link canAdd} first).
   */
  add(value: string): void {
    if (value.length < MIN_MASKED_SECRET_CHARS || this.#values.has(value)) return;
    if (this.#values.size >= MAX_MASKED_VALUES) {
      throw new RangeError(`a conversation masks at most ${MAX_MASKED_VALUES} secret values`);
    }
    this.#values.add(value);
    this.#plain = undefined;
    this.#wrapped = undefined;
  }

  /** The remembered values (for redacting what was written before they were known). */
  values(): string[] {
    return [...this.#values];
  }

  /** Every literal form looked for: the values and their encodings (not the wrapped ones). */
  forms(): string[] {
    return [...new Set([...this.#values].flatMap(needlesOf).map((needle) => needle.text))];
  }

  /** `text` with every span holding a value or an encoding of it replaced by the mask. */
  mask(text: string): string {
    const spans = this.spans(text);
    if (spans.length === 0) return text;
    let out = '';
    let at = 0;
    for (const [start, end] of spans) {
      out += text.slice(at, start) + SECRET_MASK;
      at = end;
    }
    return out + text.slice(at);
  }

  /**
   * The spans `[start, end)` of `text` to mask, sorted and merged (overlapping or touching
   * matches become one).
   */
  spans(text: string): [number, number][] {
    this.#compile();
    const found: [number, number][] = [];
    if (this.#plain === undefined || text.length < MIN_MASKED_SECRET_CHARS) return found;
    this.#plain.find(text, (start, end) => found.push([start, end]));
    // base64 broken over lines: looked for in the text without its line breaks.
    if (this.#wrapped !== undefined && text.includes('\n')) {
      const breaks = lineBreaksOf(text);
      const original = (index: number) => index + breaksUpTo(breaks, index);
      this.#wrapped.find(text.replace(LINE_BREAKS, ''), (start, end) =>
        found.push([original(start), original(end - 1) + 1]),
      );
    }
    found.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const span of found) {
      const last = merged[merged.length - 1];
      if (last !== undefined && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
      else merged.push([span[0], span[1]]);
    }
    return merged;
  }

  /**
   * A copy of a JSON-like `value` with every string in it masked (object keys are kept). Values
   * that are not plain objects, arrays or strings are returned as they are.
   */
  maskDeep<T>(value: T): T {
    if (this.#values.size === 0) return value;
    return this.#maskDeep(value, 0) as T;
  }

  #maskDeep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (depth > 200) return value;
    if (Array.isArray(value)) return value.map((item) => this.#maskDeep(item, depth + 1));
    if (typeof value === 'object' && value !== null && isPlain(value)) {
      const copy: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(value)) {
        copy[key] = this.#maskDeep(field, depth + 1);
      }
      return copy;
    }
    return value;
  }

  #compile(): void {
    if (this.#plain !== undefined || this.#values.size === 0) return;
    const needles = [...this.#values].flatMap(needlesOf);
    this.#plain = new NeedleIndex(needles.map((needle) => needle.text));
    const wrapped = needles.filter((needle) => needle.wrapped).map((needle) => needle.text);
    this.#wrapped = wrapped.length === 0 ? undefined : new NeedleIndex(wrapped);
    // A wrapped match may have a line break (\r\n) after every character.
    this.#maxMatchChars = Math.max(this.#plain.maxLength, (this.#wrapped?.maxLength ?? 0) * 3);
  }
}

/** Every form of `value` to look for. */
function needlesOf(value: string): Needle[] {
  const bytes = Buffer.from(value, 'utf8');
  const plain = new Set<string>([value]);
  plain.add(JSON.stringify(value).slice(1, -1));
  const uri = encodeURIComponent(value);
  plain.add(uri);
  plain.add(uri.replaceAll('%20', '+'));
  const hex = bytes.toString('hex');
  plain.add(hex);
  plain.add(hex.toUpperCase());
  const base64 = new Set<string>();
  const full = bytes.toString('base64');
  base64.add(full);
  base64.add(full.replace(/=+$/, ''));
  // Inside a longer stream the value starts at any offset: the groups of three bytes that lie
  // wholly within it encode the same, whatever came before.
  for (let skip = 0; skip < 3; skip += 1) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole < MIN_ENCODED_BYTES) continue;
    base64.add(bytes.subarray(skip, skip + whole).toString('base64'));
  }
  const needles: Needle[] = [...plain].map((text) => ({ text, wrapped: false }));
  for (const text of base64) {
    needles.push({ text, wrapped: true });
    const urlSafe = text.replaceAll('+', '-').replaceAll('/', '_');
    if (urlSafe !== text) needles.push({ text: urlSafe, wrapped: true });
  }
  return needles.filter((needle) => needle.text.length >= MIN_MASKED_SECRET_CHARS);
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const LINE_BREAKS = /[\r\n]/g;

/** Offsets of the line-break characters of `text`, ascending. */
function lineBreaksOf(text: string): number[] {
  const offsets: number[] = [];
  for (const match of text.matchAll(LINE_BREAKS)) offsets.push(match.index);
  return offsets;
}

/**
 * How many line breaks come before the character at `index` of the text without them: with it,
 * the character's offset in the text with them.
 */
function breaksUpTo(breaks: readonly number[], index: number): number {
  // The answer k is the number of breaks whose offset is below index + k (binary search on k).
  let low = 0;
  let high = breaks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (breaks[middle]! - middle <= index) low = middle + 1;
    else high = middle;
  }
  return low;
}
