import { describe, expect, it } from 'vitest';
import { decodePreview, formatBytes, readCapped } from './file-preview.js';

const encode = (text: string) => new TextEncoder().encode(text);

describe('decodePreview', () => {
  it('decodes UTF-8 text and keeps the size and the cut', () => {
    expect(decodePreview({ bytes: encode('héllo\n'), truncated: false, size: 7 })).toEqual({
      kind: 'text',
      text: 'héllo\n',
      truncated: false,
      size: 7,
    });
  });

  it('drops a character cut in two by the cap instead of calling the file binary', () => {
    const bytes = encode('ab€').subarray(0, 3);
    expect(decodePreview({ bytes, truncated: true, size: 100 })).toMatchObject({
      kind: 'text',
      text: 'ab',
      truncated: true,
    });
  });

  it('calls NUL bytes and invalid UTF-8 binary', () => {
    expect(decodePreview({ bytes: encode('a\0b'), truncated: false, size: 3 })).toEqual({
      kind: 'binary',
      size: 3,
    });
    const invalid = new Uint8Array([0x66, 0xff, 0xfe, 0x66]);
    expect(decodePreview({ bytes: invalid, truncated: false, size: 4 }).kind).toBe('binary');
  });
});

describe('readCapped', () => {
  it('reads a short body whole', async () => {
    const read = await readCapped(new Response('hello', { headers: { 'content-length': '5' } }));
    expect(new TextDecoder().decode(read.bytes)).toBe('hello');
    expect(read).toMatchObject({ truncated: false, size: 5 });
  });

  it('stops at the cap and says the body was longer', async () => {
    const read = await readCapped(new Response('x'.repeat(100)), 10);
    expect(read.bytes).toHaveLength(10);
    expect(read).toMatchObject({ truncated: true, size: null });
  });
});

describe('formatBytes', () => {
  it('uses binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
    expect(formatBytes(300 * 1024)).toBe('300 KiB');
  });
});
