import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeStreamAtomic } from './write-stream-atomic.js';

describe('writeStreamAtomic', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agent-server-atomic-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes the stream, creating parents, and returns the byte count', async () => {
    const destination = path.join(dir, 'a/b/out.txt');
    const written = await writeStreamAtomic({
      source: Readable.from(['hello ', 'world']),
      destination,
      mode: 0o640,
    });
    expect(written).toBe(11);
    expect(await readFile(destination, 'utf8')).toBe('hello world');
    expect((await stat(destination)).mode & 0o777).toBe(0o640);
    expect(await readdir(path.dirname(destination))).toEqual(['out.txt']);
  });

  it('leaves the destination and no temporary file when verify throws', async () => {
    const destination = path.join(dir, 'out.txt');
    await writeFile(destination, 'original');
    const attempt = writeStreamAtomic({
      source: Readable.from(['replacement']),
      destination,
      verify: () => {
        throw new Error('rejected');
      },
    });
    await expect(attempt).rejects.toThrow('rejected');
    expect(await readFile(destination, 'utf8')).toBe('original');
    expect(await readdir(dir)).toEqual(['out.txt']);
  });

  it('leaves nothing behind when the source fails midway', async () => {
    const destination = path.join(dir, 'out.txt');
    const source = Readable.from(
      (async function* () {
        yield 'partial';
        throw new Error('connection lost');
      })(),
    );
    await expect(writeStreamAtomic({ source, destination })).rejects.toThrow('connection lost');
    expect(await readdir(dir)).toEqual([]);
  });
});
