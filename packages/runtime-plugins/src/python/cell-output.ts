import { z } from 'zod';
import type { JupyterMessage } from './jupyter-codec.js';
import { stripAnsi } from './strip-ansi.js';

/**
 * Most characters of text one cell's result keeps: the first and the last half of its output,
 * with a note of how much was left out between them.
 */
export const MAX_CELL_OUTPUT_CHARS = 100_000;

/** Most images one cell's result keeps; later ones are counted in a note. */
export const MAX_CELL_IMAGES = 16;

const HALF = MAX_CELL_OUTPUT_CHARS / 2;
const IMAGE_TYPES = ['image/png', 'image/jpeg'] as const;

const streamSchema = z.looseObject({ text: z.string() });
const bundleSchema = z.looseObject({ data: z.record(z.string(), z.unknown()) });
const errorSchema = z.looseObject({
  ename: z.string().default('Error'),
  evalue: z.string().default(''),
  traceback: z.array(z.string()).default([]),
});
const clearSchema = z.looseObject({ wait: z.boolean().default(false) });

/**
 * Collects what one cell shows, in order, from its iopub messages: stream text, the `text/plain`
 * of results and displays, tracebacks without ANSI escapes, and PNG or JPEG images as `data:`
 * URLs. Honours `clear_output`. Bounded by {@link MAX_CELL_OUTPUT_CHARS} and {@link MAX_CELL_IMAGES}.
 */
export class CellOutput {
  #head = '';
  #tail: string[] = [];
  #tailLength = 0;
  #omittedChars = 0;
  #images: string[] = [];
  #omittedImages = 0;
  #lastChar = '';
  #clearPending = false;

  /** Takes one iopub message of the cell; other message types are ignored. */
  add(message: JupyterMessage): void {
    const { content } = message;
    switch (message.header.msg_type) {
      case 'stream': {
        const stream = streamSchema.safeParse(content);
        if (stream.success) this.#text(stream.data.text, false);
        return;
      }
      case 'execute_result':
      case 'display_data': {
        const bundle = bundleSchema.safeParse(content);
        if (bundle.success) this.#bundle(bundle.data.data);
        return;
      }
      case 'error': {
        const error = errorSchema.safeParse(content);
        if (!error.success) return;
        const { ename, evalue, traceback } = error.data;
        const lines = traceback.length > 0 ? traceback : [`${ename}: ${evalue}`];
        this.#text(stripAnsi(lines.join('\n')), true);
        return;
      }
      case 'clear_output': {
        const clear = clearSchema.safeParse(content);
        if (!clear.success) return;
        if (clear.data.wait) this.#clearPending = true;
        else this.#clear();
        return;
      }
      default:
        return;
    }
  }

  /** The text, in order, with a note where output was left out. */
  text(): string {
    const omitted =
      this.#omittedChars > 0
        ? `\n[... ${this.#omittedChars} characters of output omitted ...]\n`
        : '';
    const images = this.#omittedImages > 0 ? `\n[${this.#omittedImages} more images omitted]` : '';
    return `${this.#head}${omitted}${this.#tail.join('')}${images}`;
  }

  /** The images as `data:` URLs, in order. */
  images(): string[] {
    return [...this.#images];
  }

  #bundle(data: Record<string, unknown>): void {
    this.#flushClear();
    let image = false;
    for (const type of IMAGE_TYPES) {
      const base64 = data[type];
      if (typeof base64 !== 'string') continue;
      image = true;
      if (this.#images.length >= MAX_CELL_IMAGES) this.#omittedImages += 1;
      else this.#images.push(`data:${type};base64,${base64.replace(/\s/g, '')}`);
      break;
    }
    // An image's `text/plain` is only its repr (`<IPython.core.display.Image object>`).
    const plain = data['text/plain'];
    if (!image && typeof plain === 'string') this.#text(plain, true);
  }

  /** Appends `text`; a `block` (a result, a traceback) starts and ends on a line of its own. */
  #text(text: string, block: boolean): void {
    this.#flushClear();
    if (text.length === 0) return;
    if (block && this.#lastChar !== '' && this.#lastChar !== '\n') this.#append('\n');
    this.#append(block && !text.endsWith('\n') ? `${text}\n` : text);
  }

  #append(text: string): void {
    let rest = text;
    if (this.#omittedChars === 0 && this.#tailLength === 0 && this.#head.length < HALF) {
      const taken = rest.slice(0, HALF - this.#head.length);
      this.#head += taken;
      rest = rest.slice(taken.length);
    }
    this.#lastChar = text.at(-1) ?? this.#lastChar;
    if (rest.length === 0) return;
    this.#tail.push(rest);
    this.#tailLength += rest.length;
    while (this.#tailLength > HALF) {
      const first = this.#tail[0] ?? '';
      const excess = this.#tailLength - HALF;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailLength -= first.length;
        this.#omittedChars += first.length;
      } else {
        this.#tail[0] = first.slice(excess);
        this.#tailLength -= excess;
        this.#omittedChars += excess;
      }
    }
  }

  #flushClear(): void {
    if (!this.#clearPending) return;
    this.#clearPending = false;
    this.#clear();
  }

  #clear(): void {
    this.#head = '';
    this.#tail = [];
    this.#tailLength = 0;
    this.#omittedChars = 0;
    this.#images = [];
    this.#omittedImages = 0;
    this.#lastChar = '';
  }
}
