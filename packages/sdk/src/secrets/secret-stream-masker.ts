import { SECRET_MASK } from '@agent-workspace/protocol';
import type { SecretMasker } from './secret-masker.js';

/**
 * Masks text that arrives in chunks (streamed command output, streamed model tokens), so a value
 * split across two chunks is still masked: each {@link SecretStreamMasker.push} passes on what is
 * known to be safe and holds back the tail that could still be the start of a value (at most
 * `masker.maxMatchChars - 1` characters); {@link SecretStreamMasker.flush} gives the rest. The
 * text passed on, joined, equals `masker.mask()` of the whole text.
 */
export class SecretStreamMasker {
  readonly #masker: SecretMasker;
  #held = '';

  constructor(masker: SecretMasker) {
    this.#masker = masker;
  }

  /** Takes the next chunk; returns the masked text that can be passed on now (maybe `''`). */
  push(chunk: string): string {
    const buffer = this.#held + chunk;
    const holdBack = Math.max(0, this.#masker.maxMatchChars - 1);
    let cut = Math.max(0, buffer.length - holdBack);
    // A match starting before `cut` ends within the buffer (it is at most `maxMatchChars` long):
    // the cut moves past one that straddles it, so it is masked whole.
    const spans = this.#masker.spans(buffer);
    for (const [start, end] of spans) {
      if (start < cut && end > cut) cut = end;
    }
    this.#held = buffer.slice(cut);
    return maskBefore(buffer, spans, cut);
  }

  /** Ends the stream: the masked text held back. */
  flush(): string {
    const rest = this.#masker.mask(this.#held);
    this.#held = '';
    return rest;
  }
}

/** `text.slice(0, cut)` with the spans starting before `cut` masked (none crosses `cut`). */
function maskBefore(text: string, spans: readonly [number, number][], cut: number): string {
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    if (start >= cut) break;
    out += text.slice(at, start) + SECRET_MASK;
    at = end;
  }
  return out + text.slice(at, cut);
}
