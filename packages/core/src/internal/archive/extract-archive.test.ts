import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type Headers, pack } from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../../errors/workspace-error.js';
import { DirectoryHandle } from '../../fs/directory-handle.js';
import { PathWalker } from '../../fs/path-walker.js';
import { rejectionOf } from '../../testing/rejection-of.js';
import { extractArchive } from './extract-archive.js';
import { packDirectory } from './pack-directory.js';

type Entry = Headers & { content?: string | Buffer };

async function tarOf(entries: readonly Entry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of archive as AsyncIterable<Buffer>) chunks.push(chunk);
  })();
  for (const { content, ...header } of entries) {
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (content === undefined) archive.entry(header, done);
      else archive.entry(header, content, done);
    });
  }
  archive.finalize();
  await collected;
  return Buffer.concat(chunks);
}

describe('extractArchive', () => {
  let scratch: string;
  let target: string;
  let handle: DirectoryHandle;

  beforeEach(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'extract-archive-'));
    target = path.join(scratch, 'target');
    await mkdir(target);
    handle = DirectoryHandle.open(target);
  });
  afterEach(async () => {
    handle.close();
    await rm(scratch, { recursive: true, force: true });
  });

  const extract = (body: Buffer, limits: { maxEntries?: number; maxBytes?: number } = {}) =>
    extractArchive({
      source: Readable.from([body]),
      directory: handle,
      maxEntries: limits.maxEntries ?? 100,
      maxBytes: limits.maxBytes ?? 1024 * 1024,
    });

  it('writes files, directories and links, with modes less set-id bits', async () => {
    const summary = await extract(
      await tarOf([
        { name: './', type: 'directory' },
        { name: './bin/', type: 'directory', mode: 0o750 },
        { name: './bin/tool', mode: 0o6755, content: 'run' },
        { name: './locked/', type: 'directory', mode: 0o500 },
        { name: './locked/inside', content: 'in' },
        { name: './tool', type: 'symlink', linkname: 'bin/tool' },
      ]),
    );
    expect(summary).toEqual({ files: 2, directories: 2, symlinks: 1, bytes: 5 });
    expect((await stat(path.join(target, 'bin'))).mode & 0o7777).toBe(0o750);
    expect((await stat(path.join(target, 'bin/tool'))).mode & 0o7777).toBe(0o755);
    expect((await stat(path.join(target, 'locked'))).mode & 0o7777).toBe(0o500);
    expect(await readFile(path.join(target, 'locked/inside'), 'utf8')).toBe('in');
    expect(await readFile(path.join(target, 'tool'), 'utf8')).toBe('run');
  });

  const refused: [string, Entry[], string][] = [
    ['..', [{ name: 'a/../../x', content: 'x' }], 'dot-dot'],
    ['an absolute name', [{ name: '/x', content: 'x' }], 'absolute'],
    ['a hard link', [{ name: 'x', type: 'link', linkname: '/etc/passwd' }], 'hard-link'],
    ['a block device', [{ name: 'x', type: 'block-device' }], 'special-file'],
    ['an over-long component', [{ name: `${'n'.repeat(256)}`, content: 'x' }], 'name-too-long'],
    [
      'a write through a link',
      [
        { name: 'up', type: 'symlink', linkname: '../' },
        { name: 'up/x', content: 'x' },
      ],
      'through-symlink',
    ],
    [
      'a file over a directory',
      [
        { name: 'd/', type: 'directory' },
        { name: 'd', content: 'x' },
      ],
      'is-directory',
    ],
  ];
  for (const [what, entries, reason] of refused) {
    it(`refuses ${what}, naming the entry`, async () => {
      const error = await rejectionOf(extract(await tarOf(entries)));
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as WorkspaceError).details).toMatchObject({ field: 'body', reason });
      expect((error as WorkspaceError).details.entry).toBe(entries.at(-1)?.name);
      expect(await readdir(scratch)).toEqual(['target']);
    });
  }

  it('refuses a link already at the destination as a way through', async () => {
    const outside = path.join(scratch, 'outside');
    await mkdir(outside);
    await symlink(outside, path.join(target, 'out'));
    const error = await rejectionOf(extract(await tarOf([{ name: 'out/x', content: 'x' }])));
    expect((error as WorkspaceError).details.reason).toBe('through-symlink');
    expect(await readdir(outside)).toEqual([]);
  });

  it('leaves no partial or temporary file when the stream ends inside a file', async () => {
    const body = await tarOf([{ name: 'big', content: Buffer.alloc(100_000, 1) }]);
    const error = await rejectionOf(extract(body.subarray(0, 50_000)));
    expect((error as WorkspaceError).details.reason).toBe('malformed');
    expect(await readdir(target)).toEqual([]);
  });

  it('stops at the entry and byte limits before writing past them', async () => {
    const many = await tarOf([
      { name: 'a', content: '1' },
      { name: 'b', content: '2' },
    ]);
    const tooMany = await rejectionOf(extract(many, { maxEntries: 1 }));
    expect((tooMany as WorkspaceError).details).toMatchObject({
      entry: 'b',
      reason: 'too-many-entries',
    });
    const big = await tarOf([{ name: 'big', content: Buffer.alloc(2000) }]);
    const tooLarge = await rejectionOf(extract(big, { maxBytes: 1000 }));
    expect((tooLarge as WorkspaceError).details).toMatchObject({
      entry: 'big',
      reason: 'too-large',
    });
    expect(await readdir(target)).toEqual(['a']);
  });

  it('rethrows the abort reason and removes the file being written', async () => {
    const controller = new AbortController();
    const source = new Readable({ read() {} });
    const body = await tarOf([{ name: 'slow', content: Buffer.alloc(100_000, 1) }]);
    source.push(body.subarray(0, 20_000));
    const extracting = extractArchive({
      source,
      directory: handle,
      maxEntries: 10,
      maxBytes: 1 << 20,
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error('stop'));
    expect(((await rejectionOf(extracting)) as Error).message).toBe('stop');
    expect(await readdir(target)).toEqual([]);
  });

  it('checks each directory against a confining walker', async () => {
    const walker = PathWalker.open({ workingDir: target, confine: true });
    try {
      const summary = await extractArchive({
        source: Readable.from([await tarOf([{ name: 'a/b/c', content: 'c' }])]),
        directory: handle,
        walker,
        maxEntries: 10,
        maxBytes: 100,
      });
      expect(summary.files).toBe(1);
    } finally {
      walker.close();
    }
  });
});

describe('packDirectory', () => {
  it('packs what extractArchive restores, links as links, FIFOs left out', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'pack-directory-'));
    try {
      const source = path.join(scratch, 'source');
      await mkdir(path.join(source, 'empty'), { recursive: true });
      await writeFile(path.join(source, 'large'), Buffer.alloc(300_000, 3));
      await symlink('/etc/passwd', path.join(source, 'absolute-link'));
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkfifo', [path.join(source, 'fifo')]);
      const from = DirectoryHandle.open(source);
      const packed = packDirectory({ directory: from });
      from.close();
      const chunks: Buffer[] = [];
      for await (const chunk of packed) chunks.push(chunk as Buffer);
      await mkdir(path.join(scratch, 'copy'));
      const into = DirectoryHandle.open(path.join(scratch, 'copy'));
      try {
        const summary = await extractArchive({
          source: Readable.from([Buffer.concat(chunks)]),
          directory: into,
          maxEntries: 10,
          maxBytes: 1 << 20,
        });
        expect(summary).toEqual({ files: 1, directories: 1, symlinks: 1, bytes: 300_000 });
      } finally {
        into.close();
      }
      expect((await readdir(path.join(scratch, 'copy'))).sort()).toEqual([
        'absolute-link',
        'empty',
        'large',
      ]);
      expect(await readFile(path.join(scratch, 'copy/large'))).toEqual(Buffer.alloc(300_000, 3));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
