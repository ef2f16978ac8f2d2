import type { Headers } from 'tar-stream';
import { encode } from 'tar-stream/headers.js';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test-support/seeded-random.js';
import { encodeTarHeaderInto, type PlainTarHeader } from './encode-tar-header.js';

/** tar-stream's bytes for `header` as `TarOutput` hands it over (owner 0, no names). */
function reference(header: PlainTarHeader): Buffer | null {
  const { mtimeMs, ...fields } = header;
  return encode({ ...fields, uid: 0, gid: 0, mtime: new Date(mtimeMs) } as Headers);
}

/** encodeTarHeaderInto's bytes, written amid garbage at an offset; null when it declines. */
function written(header: PlainTarHeader): Buffer | null {
  const target = Buffer.alloc(2048, 0xa5);
  if (!encodeTarHeaderInto(header, target, 700)) {
    expect(target.every((byte) => byte === 0xa5)).toBe(true);
    return null;
  }
  expect(target.subarray(0, 700).every((byte) => byte === 0xa5)).toBe(true);
  expect(target.subarray(1212).every((byte) => byte === 0xa5)).toBe(true);
  return target.subarray(700, 1212);
}

const mtimeMs = 1_700_000_123_456.789;

describe('encodeTarHeaderInto', () => {
  it('writes the very bytes tar-stream encodes for the headers a pack writes', () => {
    const headers: PlainTarHeader[] = [
      { name: 'file.txt', type: 'file', size: 12, mode: 0o644, mtimeMs },
      { name: 'empty', type: 'file', size: 0, mode: 0o600, mtimeMs },
      { name: 'dir/', type: 'directory', size: 0, mode: 0o755, mtimeMs },
      { name: 'link', type: 'symlink', size: 0, mode: 0o777, linkname: '../target', mtimeMs },
      { name: 'no-mode', type: 'file', size: 3, mtimeMs },
      { name: 'set-id', type: 'file', size: 3, mode: 0o104755, mtimeMs },
      { name: 'a'.repeat(100), type: 'file', size: 8 ** 11 - 1, mode: 0o644, mtimeMs },
      { name: 'epoch', type: 'file', size: 1, mode: 0o644, mtimeMs: 0 },
      { name: 'invalid-date', type: 'file', size: 1, mode: 0o644, mtimeMs: Number.NaN },
      { name: 'out-of-range', type: 'file', size: 1, mode: 0o644, mtimeMs: 9e15 },
      { name: 'just-before-epoch', type: 'file', size: 1, mode: 0o644, mtimeMs: -999.5 },
      { name: 'PaxHeader', type: 'pax-header', size: 30, mode: 0o644, mtimeMs },
      { name: 'untyped', size: 1, mode: 0o644, mtimeMs },
    ];
    for (const header of headers) {
      const bytes = written(header);
      expect(bytes, header.name).not.toBeNull();
      expect(bytes?.equals(reference(header) as Buffer), header.name).toBe(true);
    }
  });

  it('leaves to tar-stream what it would write otherwise', () => {
    const declined: PlainTarHeader[] = [
      { name: 'a'.repeat(101), type: 'file', size: 1, mtimeMs },
      { name: `${'d'.repeat(60)}/${'f'.repeat(60)}`, type: 'file', size: 1, mtimeMs },
      { name: 'ünïcødé.txt', type: 'file', size: 1, mtimeMs },
      { name: 'link', type: 'symlink', size: 0, linkname: 'élan', mtimeMs },
      { name: 'link', type: 'symlink', size: 0, linkname: 'l'.repeat(101), mtimeMs },
      { name: 'huge', type: 'file', size: 8 ** 11, mtimeMs },
      { name: 'fraction', type: 'file', size: 1.5, mtimeMs },
      { name: 'before-1970', type: 'file', size: 1, mtimeMs: -1000 },
      { name: 'after-2038', type: 'file', size: 1, mtimeMs: 2 ** 31 * 1000 },
    ];
    for (const header of declined) expect(written(header), header.name).toBeNull();
  });

  it('agrees with tar-stream on thousands of random headers', () => {
    const random = seededRandom(29);
    const types: PlainTarHeader['type'][] = ['file', 'directory', 'symlink', 'link', 'fifo'];
    const characters = 'abcXYZ019-_. /';
    let encoded = 0;
    for (let round = 0; round < 3000; round += 1) {
      const length = Math.floor(random() * 120);
      const ascii = Array.from(
        { length },
        () => characters[Math.floor(random() * characters.length)],
      ).join('');
      const name = random() < 0.1 ? `${ascii}é` : ascii;
      const header: PlainTarHeader = {
        name,
        type: types[Math.floor(random() * types.length)],
        size: Math.floor(random() ** 4 * 8 ** 12),
        mode: Math.floor(random() * 0o200000),
        mtimeMs: (random() - 0.1) * 2.5e12,
        linkname: random() < 0.3 ? name.slice(0, 50) : undefined,
      };
      const bytes = written(header);
      if (bytes === null) continue;
      encoded += 1;
      expect(bytes.equals(reference(header) as Buffer), JSON.stringify(header)).toBe(true);
    }
    expect(encoded).toBeGreaterThan(1000);
  });
});
