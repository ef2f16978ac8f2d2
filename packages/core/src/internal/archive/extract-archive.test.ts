import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
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

type Entry = Headers & { content?: string | Buffer; pax?: Record<string, string> };

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

  /** Makes a FIFO, a socket or a device named `name` in the target; returns what to undo. */
  async function makeSpecial(kind: string, name: string): Promise<Server | undefined> {
    const at = path.join(target, name);
    if (kind === 'FIFO') execFileSync('mkfifo', [at]);
    else if (kind === 'character device') execFileSync('mknod', [at, 'c', '1', '3']);
    else {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(at, resolve));
      return server;
    }
    return undefined;
  }

  const specials = [
    { kind: 'FIFO', check: 'isFIFO' },
    { kind: 'socket', check: 'isSocket' },
    { kind: 'character device', check: 'isCharacterDevice', needsRoot: true },
  ] as const;
  const replacements: [string, Entry][] = [
    ['a small file', { name: 'sub/x', content: 'x' }],
    ['a streamed file', { name: 'sub/x', content: Buffer.alloc(100_000, 1) }],
    ['a link', { name: 'sub/x', type: 'symlink', linkname: '/etc/passwd' }],
  ];
  for (const special of specials) {
    for (const [what, entry] of replacements) {
      it.runIf(!('needsRoot' in special) || process.getuid?.() === 0)(
        `refuses ${what} over a ${special.kind}, leaving it as it was`,
        async () => {
          await mkdir(path.join(target, 'sub'));
          const server = await makeSpecial(special.kind, 'sub/x');
          try {
            const error = await rejectionOf(
              extract(await tarOf([{ name: 'first', content: '1' }, entry])),
            );
            expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
            expect((error as WorkspaceError).details).toMatchObject({
              field: 'body',
              entry: 'sub/x',
              reason: 'replaces-special-file',
            });
            expect((error as Error).message).toContain(`would replace a ${special.kind}`);
            expect(lstatSync(path.join(target, 'sub/x'))[special.check]()).toBe(true);
            expect(await readdir(path.join(target, 'sub'))).toEqual(['x']);
            expect(await readFile(path.join(target, 'first'), 'utf8')).toBe('1');
          } finally {
            server?.close();
          }
        },
      );
    }
  }

  /** A real sparse file (two data blocks in 1 MiB of hole) archived by GNU tar `--sparse`. */
  function gnuSparseTar(format: string[]): Buffer {
    const from = path.join(scratch, 'sparse-source');
    execFileSync('mkdir', ['-p', from]);
    const file = path.join(from, 'sparse');
    execFileSync('truncate', ['-s', '1M', file]);
    execFileSync('dd', [`of=${file}`, 'bs=1', 'seek=500000', 'conv=notrunc', 'status=none'], {
      input: 'hello',
    });
    return execFileSync('tar', ['--sparse', ...format, '-C', from, '-cf', '-', 'sparse']);
  }

  const sparseArchives: [string, string[], string][] = [
    ['GNU type S', ['--format=gnu'], 'unknown-type'],
    ['pax sparse 0.0', ['--format=posix', '--sparse-version=0.0'], 'sparse'],
    ['pax sparse 0.1', ['--format=posix', '--sparse-version=0.1'], 'sparse'],
    ['pax sparse 1.0', ['--format=posix', '--sparse-version=1.0'], 'sparse'],
  ];
  for (const [what, format, reason] of sparseArchives) {
    it(`refuses a ${what} entry from GNU tar --sparse, writing nothing`, async () => {
      const error = await rejectionOf(extract(gnuSparseTar(format)));
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
      expect((error as WorkspaceError).details).toMatchObject({ field: 'body', reason });
      expect((error as Error).message).toMatch(/^archive entry "(\.\/)?sparse" .*sparse/);
      expect(await readdir(target)).toEqual([]);
    });
  }

  it('refuses a pax sparse 1.0 entry a hostile archive names after its real name', async () => {
    const body = await tarOf([
      { name: 'ok', content: 'fine' },
      {
        name: 'GNUSparseFile.0/innocent',
        pax: { 'GNU.sparse.major': '1', 'GNU.sparse.minor': '0', 'GNU.sparse.name': 'innocent' },
        content: '1\n0\n4\n',
      },
    ]);
    const error = await rejectionOf(extract(body));
    expect((error as WorkspaceError).details).toMatchObject({
      entry: 'innocent',
      reason: 'sparse',
    });
    expect((error as Error).message).toContain('GNU sparse file (pax format 1.0)');
    expect(await readdir(target)).toEqual(['ok']);
  });

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
