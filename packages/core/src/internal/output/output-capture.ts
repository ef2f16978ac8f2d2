import { TextDecoder } from 'node:util';
import { TailBuffer } from './tail-buffer.js';

/**
 * Captures one output stream of a command: keeps the tail (at most `maxBytes` bytes) for the
 * result and forwards decoded text to an optional callback as chunks arrive. A streaming
 * `TextDecoder` keeps a multi-byte character that is split across chunks intact.
 */
export class OutputCapture {
  readonly #tail: TailBuffer;
  readonly #onChunk: ((chunk: string) => void) | undefined;
  readonly #decoder: TextDecoder | undefined;

  /**
   * @param maxBytes - Cap on kept bytes; the tail is kept.
   * @param onChunk - Receives decoded text as it arrives; may throw (the caller handles it).
   */
  constructor(maxBytes: number, onChunk?: (chunk: string) => void) {
    this.#tail = new TailBuffer(maxBytes);
    this.#onChunk = onChunk;
    // Only pay for incremental decoding when someone listens.
    this.#decoder = onChunk ? new TextDecoder('utf-8', { ignoreBOM: true }) : undefined;
  }

  /** Records a chunk of raw output and forwards its decoded text. */
  write(chunk: Uint8Array): void {
    this.#tail.write(chunk);
    if (this.#decoder) {
      const text = this.#decoder.decode(chunk, { stream: true });
      if (text.length > 0) this.#onChunk?.(text);
    }
  }

  /** Forwards what the decoder still holds (an incomplete character becomes U+FFFD). */
  flush(): void {
    if (!this.#decoder) return;
    const text = this.#decoder.decode();
    if (text.length > 0) this.#onChunk?.(text);
  }

  /**
   * The captured text. When bytes were dropped it starts with `[... N bytes truncated ...]\n`
   * and continuation bytes of a character cut by the cap are dropped too.
   */
  text(): string {
    let bytes = this.#tail.toBuffer();
    let dropped = this.#tail.droppedBytes;
    if (dropped === 0) return decodeUtf8(bytes);
    let skip = 0;
    // Skip at most 3 UTF-8 continuation bytes (0b10xxxxxx) left by the cut.
    while (skip < 3 && skip < bytes.length && ((bytes[skip] ?? 0) & 0xc0) === 0x80) skip++;
    bytes = bytes.subarray(skip);
    dropped += skip;
    return `${truncationMarker(dropped)}${decodeUtf8(bytes)}`;
  }
}

/** The line that prefixes captured output when `droppedBytes` bytes were dropped. */
export function truncationMarker(droppedBytes: number): string {
  return `[... ${droppedBytes} bytes truncated ...]\n`;
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

function decodeUtf8(bytes: Uint8Array): string {
  return bytes.length === 0 ? '' : utf8.decode(bytes);
}
