import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgressPrinter } from './progress-printer.js';

/** A writable that records what is written, optionally claiming to be a terminal. */
function captureStream(isTTY: boolean, columns = 30): NodeJS.WriteStream & { text: string } {
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      stream.text += String(chunk);
      callback();
    },
  }) as unknown as NodeJS.WriteStream & { text: string };
  Object.assign(stream, { isTTY, columns, text: '' });
  return stream;
}

describe('createProgressPrinter', () => {
  it('prints every event on its own line when not on a terminal', () => {
    const stream = captureStream(false);
    const printer = createProgressPrinter(stream);
    printer.onProgress({ type: 'step', message: 'Step 1/2 : FROM base\n' });
    printer.onProgress({ type: 'log', message: ' ---> abc' });
    printer.onProgress({ type: 'done', message: 'image:tag' });
    printer.close();
    expect(stream.text).toBe('==> Step 1/2 : FROM base\n   ---> abc\nimage:tag\n');
  });

  it('keeps output lines on one updating line, cut to the width, on a terminal', () => {
    const stream = captureStream(true, 30);
    const printer = createProgressPrinter(stream);
    printer.onProgress({ type: 'log', message: 'first' });
    printer.onProgress({ type: 'log', message: 'x'.repeat(100) });
    printer.onProgress({ type: 'step', message: 'next step' });
    printer.close();
    const clear = '\r\x1b[2K';
    expect(stream.text).toBe(`${clear}  first${clear}  ${'x'.repeat(27)}${clear}==> next step\n`);
    expect(stream.text.split('\n').length).toBe(2);
  });
});
