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

  it('gives files of a new directory their exact modes, those the umask would cut included', async () => {
    // The umask of the test process (022 or 002, usually) cuts group/other write bits.
    const modes = [0o644, 0o600, 0o755, 0o666, 0o777, 0o604, 0o400];
    await extract(
      await tarOf(modes.map((mode) => ({ name: `new/m${mode.toString(8)}`, mode, content: 'x' }))),
    );
    for (const mode of modes) {
      const actual = (await stat(path.join(target, `new/m${mode.toString(8)}`))).mode & 0o7777;
      expect(actual.toString(8), `mode ${mode.toString(8)}`).toBe(mode.toString(8));
    }
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
  /** Every name below `dir`, recursively, `/`-separated and sorted. */
  async function tree(dir: string): Promise<string[]> {
    const names = await readdir(dir, { recursive: true });
    return names.map((name) => name.split(path.sep).join('/')).sort();
  }

  it('fills a new directory under a temporary name and publishes it whole', async () => {
    const events: string[] = [];
    const summary = await extractArchive({
      source: Readable.from([
        await tarOf([
          { name: 'top.txt', content: 'top' },
          { name: 'new/', type: 'directory', mode: 0o750 },
          { name: 'new/a', content: 'a', mode: 0o640 },
          { name: 'new/deep/b', content: Buffer.alloc(100_000, 2) },
          { name: 'new/a', content: 'a again' },
          { name: 'new/link', type: 'symlink', linkname: 'a' },
          { name: 'other/c', content: 'c' },
        ]),
      ]),
      directory: handle,
      maxEntries: 100,
      maxBytes: 1 << 20,
      onTemporaryFile: (event, file) => {
        const kind = event === 'created' && lstatSync(file).isDirectory() ? 'directory' : 'file';
        events.push(`${event} ${event === 'created' ? kind : ''} ${file}`);
      },
    });
    expect(summary).toEqual({ files: 5, directories: 1, symlinks: 1, bytes: 100_012 });
    expect(await tree(target)).toEqual([
      'new',
      'new/a',
      'new/deep',
      'new/deep/b',
      'new/link',
      'other',
      'other/c',
      'top.txt',
    ]);
    expect(await readFile(path.join(target, 'new/a'), 'utf8')).toBe('a again');
    expect((await stat(path.join(target, 'new'))).mode & 0o777).toBe(0o750);
    // Files in a staged directory need no temporary file of their own: the two staged
    // directories, top.txt, the streamed file and the second new/a have one each.
    const created = events.filter((event) => event.startsWith('created'));
    expect(created.filter((event) => event.startsWith('created directory'))).toHaveLength(2);
    expect(created).toHaveLength(5);
    for (const event of created) {
      const file = event.replace(/^created \w+ /, '');
      expect(events).toContain(`gone  ${file}`);
      expect(path.basename(file)).toMatch(/^\..*\.[0-9a-f]{12}\.part$/);
    }
  });

  /** A source fed by hand: the first entries, then (once `between` ran) the rest. */
  async function extractInTwoSteps(
    first: Entry[],
    rest: Entry[],
    between: () => Promise<void>,
  ): Promise<unknown> {
    const whole = await tarOf([...first, ...rest]);
    // The end of a tar is two zero blocks; without them `first` ends at an entry boundary.
    const cut = (await tarOf(first)).length - 1024;
    const source = new Readable({ read() {} });
    source.push(whole.subarray(0, cut));
    const extracting = extractArchive({
      source,
      directory: handle,
      maxEntries: 100,
      maxBytes: 1 << 20,
    });
    const outcome = extracting.then(
      (summary) => summary,
      (error: unknown) => error,
    );
    await between();
    source.push(whole.subarray(cut));
    source.push(null);
    return outcome;
  }

  /** Waits until the staged directory holds `name`; returns the staged directory's path. */
  async function stagedHolding(name: string): Promise<string> {
    for (;;) {
      const staged = (await readdir(target)).find((entry) => entry.endsWith('.part'));
      if (staged !== undefined && (await readdir(path.join(target, staged))).includes(name)) {
        return path.join(target, staged);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('merges a staged directory into one made meanwhile under its final name', async () => {
    const outcome = await extractInTwoSteps(
      [
        { name: 'd/', type: 'directory', mode: 0o750 },
        { name: 'd/sub/a', content: 'a' },
        { name: 'd/both', content: 'archive' },
      ],
      [{ name: 'e/x', content: 'x' }],
      async () => {
        await stagedHolding('both');
        await mkdir(path.join(target, 'd/sub'), { recursive: true });
        await writeFile(path.join(target, 'd/sub/theirs'), 'theirs');
        await writeFile(path.join(target, 'd/both'), 'theirs');
      },
    );
    expect(outcome).toMatchObject({ files: 3 });
    expect(await tree(target)).toEqual([
      'd',
      'd/both',
      'd/sub',
      'd/sub/a',
      'd/sub/theirs',
      'e',
      'e/x',
    ]);
    expect(await readFile(path.join(target, 'd/both'), 'utf8')).toBe('archive');
    expect((await stat(path.join(target, 'd'))).mode & 0o777).toBe(0o750);
  });

  const conflicts: [string, (at: string) => Promise<void>, string][] = [
    ['a file', (at) => writeFile(at, 'theirs'), 'not-directory'],
    ['a link', (at) => symlink(scratch, at), 'through-symlink'],
  ];
  for (const [what, make, reason] of conflicts) {
    it(`refuses to publish a staged directory over ${what} made meanwhile, leaving nothing staged`, async () => {
      const outcome = await extractInTwoSteps(
        [{ name: 'd/a', content: 'a' }],
        [{ name: 'e/x', content: 'x' }],
        async () => {
          await stagedHolding('a');
          await make(path.join(target, 'd'));
        },
      );
      expect(WorkspaceError.isInstance(outcome, 'INVALID_ARGUMENT')).toBe(true);
      expect((outcome as WorkspaceError).details).toMatchObject({ entry: 'd', reason });
      expect(await readdir(target)).toEqual(['d']);
      expect(lstatSync(path.join(target, 'd')).isDirectory()).toBe(false);
      expect(await readdir(scratch)).toEqual(['target']);
    });
  }

  it('publishes what a new directory holds whole when the stream ends inside a file', async () => {
    const body = await tarOf([
      { name: 'new/done', content: 'done' },
      { name: 'new/cut', content: Buffer.alloc(50_000, 1) },
    ]);
    const error = await rejectionOf(extract(body.subarray(0, 20_000)));
    expect((error as WorkspaceError).details.reason).toBe('malformed');
    expect(await tree(target)).toEqual(['new', 'new/done']);
    expect(await readFile(path.join(target, 'new/done'), 'utf8')).toBe('done');
  });

  it('reads what GNU tar writes: GNU long names and links, pax records, large files', async () => {
    const source = path.join(scratch, 'gnu-source');
    const longDir = `${'a'.repeat(120)}/${'b'.repeat(120)}`;
    await mkdir(path.join(source, longDir), { recursive: true });
    const files: [string, Buffer][] = [
      [`${longDir}/${'c'.repeat(200)}`, Buffer.alloc(3000, 1)],
      ['ünïcode', Buffer.from('u')],
      ['large', Buffer.alloc(1_000_003, 2)],
      ['empty', Buffer.alloc(0)],
    ];
    for (const [name, content] of files) await writeFile(path.join(source, name), content);
    await symlink(`../${'l'.repeat(150)}`, path.join(source, 'long-link'));
    for (const format of ['gnu', 'pax', 'ustar']) {
      const tree = format === 'ustar' ? ['large', 'empty', 'ünïcode'] : ['.'];
      const archive = execFileSync('tar', [`--format=${format}`, '-c', '-C', source, ...tree], {
        maxBuffer: 1 << 24,
      });
      const into = path.join(scratch, `from-${format}`);
      await mkdir(into);
      const intoHandle = DirectoryHandle.open(into);
      try {
        // Fed in odd-sized pieces, so headers and bodies straddle chunks.
        const pieces: Buffer[] = [];
        for (let at = 0; at < archive.length; at += 7919)
          pieces.push(archive.subarray(at, at + 7919));
        await extractArchive({
          source: Readable.from(pieces),
          directory: intoHandle,
          maxEntries: 100,
          maxBytes: 1 << 24,
        });
      } finally {
        intoHandle.close();
      }
      for (const [name, content] of files) {
        if (format === 'ustar' && name.includes('/')) continue;
        // Buffer.equals: vitest's toEqual walks a megabyte byte by byte (seconds per file).
        const written = await readFile(path.join(into, name));
        expect(written.equals(content), `${format}: ${name} (${written.length} bytes)`).toBe(true);
      }
      if (format !== 'ustar') {
        const { readlink } = await import('node:fs/promises');
        expect(await readlink(path.join(into, 'long-link'))).toBe(`../${'l'.repeat(150)}`);
      }
    }
  });

  it('publishes what a new directory holds when a limit stops the extraction inside it', async () => {
    const body = await tarOf([
      { name: 'new/a', content: 'a' },
      { name: 'new/b', content: 'bb' },
    ]);
    const error = await rejectionOf(extract(body, { maxBytes: 2 }));
    expect((error as WorkspaceError).details).toMatchObject({
      entry: 'new/b',
      reason: 'too-large',
    });
    expect(await tree(target)).toEqual(['new', 'new/a']);
    expect(await readdir(scratch)).toEqual(['target']);
  });
});

describe('packDirectory', () => {
  /** The whole archive of `source`. */
  async function packed(source: string, options: { prefix?: string } = {}): Promise<Buffer> {
    const from = DirectoryHandle.open(source);
    const stream = packDirectory({ directory: from, ...options });
    from.close();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  it('writes a tar GNU tar reads back byte for byte: long names, large files, block edges', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'pack-directory-'));
    try {
      const source = path.join(scratch, 'source');
      const longDir = `${'d'.repeat(120)}/${'e'.repeat(90)}`;
      await mkdir(path.join(source, longDir), { recursive: true });
      const files: [string, Buffer, number][] = [
        [`${longDir}/${'f'.repeat(150)}.txt`, Buffer.alloc(1000, 1), 0o640],
        ['empty', Buffer.alloc(0), 0o600],
        ['block', Buffer.alloc(512, 2), 0o644],
        ['small-limit', Buffer.alloc(64 * 1024, 3), 0o755],
        ['just-over', Buffer.alloc(64 * 1024 + 1, 4), 0o644],
        ['large', Buffer.alloc(700_000, 5), 0o644],
        ['ünïcode-näme', Buffer.from('u'), 0o644],
      ];
      // Enough small files to cross several output pieces at odd offsets.
      for (let i = 0; i < 300; i++) files.push([`many/f${i}`, Buffer.alloc(i * 37, i), 0o644]);
      for (const [name, content, mode] of files) {
        await mkdir(path.dirname(path.join(source, name)), { recursive: true });
        await writeFile(path.join(source, name), content, { mode });
      }
      await symlink(`/${'t'.repeat(200)}`, path.join(source, 'long-link'));
      const archive = await packed(source, { prefix: 'top/' });
      expect(archive.length % 512).toBe(0);
      const copy = path.join(scratch, 'copy');
      await mkdir(copy);
      execFileSync('tar', ['-x', '-p', '-C', copy], { input: archive });
      for (const [name, content, mode] of files) {
        const file = path.join(copy, 'top', name);
        const written = await readFile(file);
        expect(written.equals(content), `${name} (${written.length} bytes)`).toBe(true);
        expect(((await stat(file)).mode & 0o777).toString(8), name).toBe(mode.toString(8));
      }
      expect(lstatSync(path.join(copy, 'top/long-link')).isSymbolicLink()).toBe(true);
      const { readlink } = await import('node:fs/promises');
      expect(await readlink(path.join(copy, 'top/long-link'))).toBe(`/${'t'.repeat(200)}`);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('closes every descriptor when the stream is destroyed early or the signal fires', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'pack-directory-'));
    try {
      for (let i = 0; i < 5; i++) {
        await mkdir(path.join(scratch, `d${i}`, 'deeper'), { recursive: true });
        await writeFile(path.join(scratch, `d${i}`, 'deeper', 'big'), Buffer.alloc(600_000, i));
      }
      const descriptors = async () => (await readdir('/proc/self/fd')).length;
      const before = await descriptors();
      const from = DirectoryHandle.open(scratch);
      const closed: Promise<unknown>[] = [];
      const pack = (signal?: AbortSignal) => {
        const stream = packDirectory({ directory: from, signal });
        closed.push(new Promise((resolve) => stream.once('close', resolve)));
        return stream;
      };
      // Never read.
      pack().destroy();
      // Read in part.
      const partly = pack();
      await new Promise((resolve) => partly.once('readable', resolve));
      partly.read();
      partly.destroy();
      // Stopped by its signal mid-file.
      const controller = new AbortController();
      const aborted = pack(controller.signal);
      from.close();
      let received = 0;
      const failure = await rejectionOf(
        (async () => {
          for await (const chunk of aborted) {
            received += (chunk as Buffer).length;
            if (received > 300_000) controller.abort(new Error('stop here'));
          }
        })(),
      );
      expect((failure as Error).message).toBe('stop here');
      await Promise.all(closed);
      expect(await descriptors()).toBe(before);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

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
