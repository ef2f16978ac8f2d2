import { describe, expect, it } from 'vitest';
import { COALESCE_MAX_CHARS, OutputCoalescer, type OutputStream } from './output-coalescer.js';

type Emitted = [OutputStream, string];

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;

function collect(): { coalescer: OutputCoalescer; emitted: Emitted[]; next: () => Promise<void> } {
  const emitted: Emitted[] = [];
  let wake: () => void = () => {};
  const coalescer = new OutputCoalescer((stream, text) => {
    emitted.push([stream, text]);
    wake();
  });
  const next = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  return { coalescer, emitted, next };
}

describe('OutputCoalescer', () => {
  it('merges chunks of one stream into one delayed emission', async () => {
    const { coalescer, emitted, next } = collect();
    const emittedLater = next();
    coalescer.write('stdout', 'a');
    coalescer.write('stdout', 'b');
    coalescer.write('stdout', '');
    expect(emitted).toEqual([]);
    await emittedLater;
    expect(emitted).toEqual([['stdout', 'ab']]);
  });

  it('emits what is held when the other stream writes, keeping arrival order', () => {
    const { coalescer, emitted } = collect();
    coalescer.write('stdout', 'out-1 ');
    coalescer.write('stderr', 'err-1 ');
    coalescer.write('stderr', 'err-2 ');
    coalescer.write('stdout', 'out-2');
    coalescer.flush();
    expect(emitted).toEqual([
      ['stdout', 'out-1 '],
      ['stderr', 'err-1 err-2 '],
      ['stdout', 'out-2'],
    ]);
    coalescer.flush();
    expect(emitted).toHaveLength(3);
  });

  it('caps emissions at COALESCE_MAX_CHARS without splitting surrogate pairs', () => {
    const { coalescer, emitted } = collect();
    const emoji = '😀'; // two UTF-16 code units
    const text = `${'a'.repeat(COALESCE_MAX_CHARS - 1)}${emoji}${'b'.repeat(COALESCE_MAX_CHARS + 10)}`;
    coalescer.write('stdout', 'x');
    coalescer.write('stdout', text);
    coalescer.flush();
    const pieces = emitted.map(([, piece]) => piece);
    expect(pieces.join('')).toBe(`x${text}`);
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(COALESCE_MAX_CHARS);
      expect(piece).not.toMatch(LONE_SURROGATE);
    }
  });
});
