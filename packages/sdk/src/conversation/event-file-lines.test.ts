import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileLine, linesBackward, linesForward } from './event-file-lines.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'event-file-lines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(lines: AsyncIterable<FileLine>): Promise<FileLine[]> {
  const found: FileLine[] = [];
  for await (const line of lines) found.push(line);
  return found;
}

/** Lines around and across the 64 KiB read size, multi-byte text included. */
const TEXTS = [
  'first',
  '',
  'é'.repeat(40_000),
  'x'.repeat(200_000),
  'short',
  'ü€'.repeat(30_000),
  'last',
];

describe('linesForward and linesBackward', () => {
  it('read every line with its offset and size, either way, across chunk boundaries', async () => {
    const file = path.join(dir, 'lines.jsonl');
    const content = `${TEXTS.join('\n')}\n`;
    await writeFile(file, content);
    const size = Buffer.byteLength(content);
    const handle = await open(file, 'r');
    try {
      const forward = await collect(linesForward(handle, 0, size, 1024 ** 2));
      expect(forward.map((line) => line.text)).toEqual(TEXTS);
      let offset = 0;
      for (const [index, line] of forward.entries()) {
        expect(line.start).toBe(offset);
        expect(line.bytes).toBe(Buffer.byteLength(TEXTS[index]!) + 1);
        offset += line.bytes;
      }
      const backward = await collect(linesBackward(handle, 0, size, 1024 ** 2));
      expect(backward).toEqual(forward.reverse());

      // A range starting and ending on line starts.
      const third = backward.at(-3)!;
      const fifth = backward.at(-5)!;
      const middle = await collect(
        linesForward(handle, third.start, fifth.start + fifth.bytes, 1024 ** 2),
      );
      expect(middle.map((line) => line.text)).toEqual(TEXTS.slice(2, 5));
      const middleBack = await collect(
        linesBackward(handle, third.start, fifth.start + fifth.bytes, 1024 ** 2),
      );
      expect(middleBack.map((line) => line.text)).toEqual(TEXTS.slice(2, 5).reverse());
    } finally {
      await handle.close();
    }
  });

  it('give lines over the bound without their text, and leave out a torn tail', async () => {
    const file = path.join(dir, 'torn.jsonl');
    const content = `${TEXTS.join('\n')}\n{"torn":`;
    await writeFile(file, content);
    const handle = await open(file, 'r');
    try {
      const size = Buffer.byteLength(content);
      const forward = await collect(linesForward(handle, 0, size, 100_000));
      expect(forward.map((line) => line.text)).toEqual(
        TEXTS.map((text) => (Buffer.byteLength(text) > 100_000 ? undefined : text)),
      );
      expect(forward[3]).toMatchObject({ text: undefined, bytes: 200_001 });
      const backward = await collect(linesBackward(handle, 0, size, 100_000));
      expect(backward).toEqual(forward.reverse());
    } finally {
      await handle.close();
    }
  });
});
