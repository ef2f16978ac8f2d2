import { setTimeout as sleep } from 'node:timers/promises';
import { LLMError } from './llm-error.js';
import type { StreamDelta, StreamDeltaListener } from './stream-completion.js';

/** Largest `stream_chunk_chars` of a `ScriptedLLM`. */
export const MAX_SCRIPTED_STREAM_CHUNK_CHARS = 10_000;
/** Largest `stream_delay_ms` of a `ScriptedLLM`. */
export const MAX_SCRIPTED_STREAM_DELAY_MS = 10_000;

/** What {@link streamScriptedAnswer} streams. */
export interface ScriptedStreamRequest {
  reasoning: string;
  text: string;
  chunkChars: number;
  delayMs: number;
  signal: AbortSignal | undefined;
  onDelta: StreamDeltaListener | undefined;
}

/**
 * Streams a scripted answer as a model would: the reasoning, then the text, in chunks of
 * `chunkChars` characters, each after `delayMs`. Joined, the text chunks are the text. A fired
 * `signal` stops it with an `ABORTED` `LLMError`; a listener that throws is ignored.
 */
export async function streamScriptedAnswer(request: ScriptedStreamRequest): Promise<void> {
  const { chunkChars, delayMs, signal, onDelta } = request;
  const deltas: StreamDelta[] = [
    ...chunks(request.reasoning, chunkChars).map((piece) => ({ reasoningContent: piece })),
    ...chunks(request.text, chunkChars).map((piece) => ({ content: piece })),
  ];
  for (const delta of deltas) {
    try {
      if (delayMs > 0) await sleep(delayMs, undefined, signal === undefined ? {} : { signal });
    } catch {
      // Only the signal rejects the pause.
    }
    if (signal?.aborted) {
      throw new LLMError({
        code: 'ABORTED',
        message: 'the call of the scripted model was aborted while it streamed',
        cause: signal.reason,
      });
    }
    try {
      onDelta?.(delta);
    } catch {
      // The listener's failure is its own.
    }
  }
}

/** `text` cut into pieces of `size` characters (code points are not split). */
function chunks(text: string, size: number): string[] {
  const characters = [...text];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    pieces.push(characters.slice(start, start + size).join(''));
  }
  return pieces;
}
