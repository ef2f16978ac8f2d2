import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Headers } from 'tar-stream';
import { decode, encode } from 'tar-stream/headers.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../../test-support/seeded-random.js';
import { decodeTarHeader } from './decode-tar-header.js';

// tar-stream's decode, counted: plain headers must not need it.
vi.mock('tar-stream/headers.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('tar-stream/headers.js')>();
  return { ...original, decode: vi.fn(original.decode) };
});

/** What tar-stream's decode gives for the block, or the message it throws. */
function reference(block: Buffer): unknown {
  try {
    return decode(block, 'utf-8', false);
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

/** The same for decodeTarHeader. */
function decoded(block: Buffer): unknown {
  try {
    return decodeTarHeader(block);
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

/** tar-stream's encoding of `header`, with the defaults its `pack()` would give. */
function encoded(header: Headers): Buffer {
  const block = encode({
    mode: 0o644,
    uid: 0,
    gid: 0,
    size: 0,
    mtime: new Date(1_600_000_000_000),
    uname: '',
    gname: '',
    devmajor: 0,
    devminor: 0,
    ...header,
  });
  if (block === null) throw new Error(`tar-stream cannot encode ${header.name} in one block`);
  return block;
}

/** Writes the checksum tar expects into `block` (after its other bytes were changed). */
function fixChecksum(block: Buffer): void {
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
}

/** The header blocks of a tar archive, walked by their sizes (pax and long-name ones included). */
function headerBlocks(archive: Buffer): Buffer[] {
  const blocks: Buffer[] = [];
  for (let at = 0; at + 512 <= archive.length; ) {
    const block = archive.subarray(at, at + 512);
    const header = decode(block, 'utf-8', true);
    at += 512;
    if (header === null) continue;
    blocks.push(Buffer.from(block));
    at += Math.ceil(header.size / 512) * 512;
  }
  return blocks;
}

const ENCODED: Headers[] = [
  { name: 'file.txt', type: 'file', size: 12, mode: 0o644, mtime: new Date(1_700_000_000_000) },
  { name: 'dir/', type: 'directory', mode: 0o755, mtime: new Date(0) },
  { name: 'link', type: 'symlink', linkname: '../target/élan', mode: 0o777 },
  { name: 'hard', type: 'link', linkname: 'file.txt' },
  { name: 'fifo', type: 'fifo', mode: 0o600 },
  { name: 'dev', type: 'character-device', devmajor: 1, devminor: 3 },
  { name: 'blk', type: 'block-device', devmajor: 8, devminor: 1 },
  { name: 'contiguous', type: 'contiguous-file', size: 1 },
  { name: 'uid-gid.txt', type: 'file', size: 3, uid: 1000, gid: 1000 },
  { name: 'owned', type: 'file', uname: 'agent', gname: 'staff', uid: 10001, gid: 10001 },
  { name: 'big', type: 'file', size: 8 * 1024 ** 3 - 1 },
  { name: 'huge', type: 'file', size: 8 * 1024 ** 3 + 1 },
  { name: `${'p'.repeat(120)}/${'n'.repeat(90)}`, type: 'file', size: 0 },
  { name: 'no-slash-dir/', type: 'file', size: 0 },
  { name: 'PaxHeader', type: 'pax-header', size: 30 },
];

describe('decodeTarHeader', () => {
  let scratch: string;
  let gnuTarHeaders: Buffer[];

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'decode-tar-header-'));
    const tree = path.join(scratch, 'tree');
    await mkdir(path.join(tree, 'sub', 'deeper'), { recursive: true });
    await writeFile(path.join(tree, 'a.txt'), 'alpha');
    await writeFile(path.join(tree, 'sub', 'ünïcødé.bin'), Buffer.alloc(1500, 7));
    await writeFile(path.join(tree, 'sub', 'deeper', `${'long'.repeat(40)}.txt`), 'x');
    await symlink('a.txt', path.join(tree, 'to-a'));
    // ustar and v7 cannot hold the long name: tar leaves it out, exits 2, archives the rest.
    gnuTarHeaders = ['gnu', 'oldgnu', 'ustar', 'pax', 'v7'].flatMap((format) => {
      const { stdout, error } = spawnSync('tar', [`--format=${format}`, '-c', '-C', tree, '.'], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      if (error) throw error;
      return headerBlocks(stdout);
    });
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('reads what tar-stream encodes exactly as tar-stream decodes it', () => {
    for (const header of ENCODED) {
      const block = encoded(header);
      const expected = reference(block);
      expect(expected).not.toHaveProperty('threw');
      expect(decoded(block), header.name).toEqual(expected);
    }
  });

  it('reads UTF-8 names and link names as tar-stream does', () => {
    // tar-stream writes such names in pax records; GNU tar and others write the bytes.
    const block = encoded({ name: 'x', type: 'symlink', linkname: 'y' });
    block.write('ünïcødé/名前.txt\0', 0, 'utf8');
    block.write('../élan\0', 157, 'utf8');
    fixChecksum(block);
    expect(decoded(block)).toMatchObject({ name: 'ünïcødé/名前.txt', linkname: '../élan' });
    expect(decoded(block)).toEqual(reference(block));
  });

  it('reads plain headers without tar-stream, base-256 sizes with it', () => {
    const plain = encoded({ name: 'plain.txt', type: 'file', size: 4096, mode: 0o640 });
    const huge = encoded({ name: 'huge', type: 'file', size: 8 * 1024 ** 3 + 1 });
    vi.mocked(decode).mockClear();
    expect(decodeTarHeader(plain)).toMatchObject({ name: 'plain.txt', size: 4096, mode: 0o640 });
    expect(decode).not.toHaveBeenCalled();
    expect(decodeTarHeader(huge)).toMatchObject({ name: 'huge', size: 8 * 1024 ** 3 + 1 });
    expect(decode).toHaveBeenCalledTimes(1);
  });

  it('reads the headers GNU tar writes in each format as tar-stream does', () => {
    // v7 headers have no magic: tar-stream refuses them, and so does the fast path.
    expect(gnuTarHeaders.length).toBeGreaterThan(30);
    const read = gnuTarHeaders.filter((block) => {
      const expected = reference(block);
      expect(decoded(block)).toEqual(expected);
      return !(expected as { threw?: string }).threw;
    });
    expect(read.length).toBeGreaterThan(20);
  });

  it('agrees with tar-stream on zero blocks, bad checksums and unknown formats', () => {
    const zeros = Buffer.alloc(512);
    expect(decoded(zeros)).toBeNull();
    const onlyChecksum = Buffer.alloc(512);
    onlyChecksum.write('0000000\0', 148, 'latin1');
    expect(decoded(onlyChecksum)).toEqual(reference(onlyChecksum));
    const valid = encoded({ name: 'x', type: 'file', size: 1 });
    const badChecksum = Buffer.from(valid);
    badChecksum[0] = 0x79;
    expect(decoded(badChecksum)).toEqual({ threw: expect.stringMatching(/Invalid tar header/) });
    expect(decoded(badChecksum)).toEqual(reference(badChecksum));
    // GNU headers have no name prefix: what lies there (old GNU's times) is not part of the name.
    const gnu = gnuTarHeaders.find((block) => block.toString('latin1', 257, 265) === 'ustar  \0');
    const withTimes = Buffer.from(gnu as Buffer);
    withTimes.write('14677777777\0', 345, 'latin1');
    fixChecksum(withTimes);
    expect(decoded(withTimes)).toEqual(reference(withTimes));
    const unknownFormat = Buffer.from(valid);
    unknownFormat.write('NOTTAR', 257, 'latin1');
    fixChecksum(unknownFormat);
    expect(decoded(unknownFormat)).toEqual({ threw: 'Invalid tar header: unknown format.' });
  });

  it('agrees with tar-stream on numeric fields in every other spelling', () => {
    const spellings = [
      ' 644 \0\0\0',
      '\x00\x000644',
      '64\x004\0\0\0\0',
      '0000644 ',
      '00006448',
      '        ',
      '\0\0\0\0\0\0\0\0',
      '\x80\0\0\0\0\0\x01\0',
      '\xff\xff\xff\xff\xff\xff\xff\xfe',
      '7777777\0',
      'abc\0\0\0\0\0',
    ];
    const base = encoded({ name: 'n', type: 'file', size: 5 });
    for (const spelling of spellings) {
      for (const field of [100, 108, 116, 329, 337]) {
        const block = Buffer.from(base);
        block.write(spelling, field, 'latin1');
        fixChecksum(block);
        expect(decoded(block), JSON.stringify({ spelling, field })).toEqual(reference(block));
      }
      for (const field of [124, 136]) {
        const block = Buffer.from(base);
        block.write(spelling.padEnd(12, '\0'), field, 'latin1');
        fixChecksum(block);
        expect(decoded(block), JSON.stringify({ spelling, field })).toEqual(reference(block));
      }
    }
  });

  it('agrees with tar-stream on thousands of mutated headers', () => {
    const random = seededRandom(29);
    const bases = [...ENCODED.map((header) => encoded(header)), ...gnuTarHeaders];
    let fastAndEqual = 0;
    for (let round = 0; round < 4000; round += 1) {
      const block = Buffer.from(bases[Math.floor(random() * bases.length)] as Buffer);
      const changes = 1 + Math.floor(random() * 3);
      for (let change = 0; change < changes; change += 1) {
        block[Math.floor(random() * 512)] = Math.floor(random() * 256);
      }
      if (random() < 0.8) fixChecksum(block);
      const expected = reference(block);
      expect(decoded(block)).toEqual(expected);
      if (expected !== null && !(expected as { threw?: string }).threw) fastAndEqual += 1;
    }
    // Most mutated headers stay valid, so both paths are exercised.
    expect(fastAndEqual).toBeGreaterThan(1000);
  });
});
