import { execFileSync } from 'node:child_process';
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { AGENT_SERVER_ROUTES, DIRECTORY_ARCHIVE_CAPABILITY } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTar, type TarEntry } from '../../reliability/support/tar.js';
import { gnuSparseArchives } from '../test-support/gnu-sparse-archives.js';
import {
  type ConfinedTestServer,
  startConfinedTestServer,
} from '../test-support/start-confined-test-server.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

const TAR = 'application/x-tar';

function archiveUrl(t: TestServer, target: string): string {
  return `${t.url}${AGENT_SERVER_ROUTES.directoryArchive}?${new URLSearchParams({ path: target })}`;
}

function extract(
  t: TestServer,
  target: string,
  body: Buffer,
  headers: Record<string, string> = {},
) {
  return fetch(archiveUrl(t, target), {
    method: 'POST',
    headers: { 'content-type': TAR, ...headers },
    body,
  });
}

/** Every path below `dir`, sorted, with `/` after directories and `-> target` after links. */
async function listTree(dir: string, prefix = ''): Promise<string[]> {
  const result: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) result.push(`${prefix}${entry.name} -> ${await readlink(full)}`);
    else if (entry.isDirectory()) {
      result.push(`${prefix}${entry.name}/`);
      result.push(...(await listTree(full, `${prefix}${entry.name}/`)));
    } else result.push(`${prefix}${entry.name}`);
  }
  return result;
}

describe('directory archive routes', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ maxUploadBytes: 64 * 1024, maxArchiveEntries: 20 });
  });
  afterAll(() => t.close());

  it('announces the capability', async () => {
    const info = (await (await fetch(`${t.url}/server_info`)).json()) as { capabilities: string[] };
    expect(info.capabilities).toContain(DIRECTORY_ARCHIVE_CAPABILITY);
  });

  it('round-trips a tree: nested and empty directories, a link, modes', async () => {
    const source = path.join(t.dir, 'source');
    await mkdir(path.join(source, 'a/b'), { recursive: true });
    await mkdir(path.join(source, 'empty'));
    await writeFile(path.join(source, 'a/b/deep.txt'), 'deep\n');
    await writeFile(path.join(source, 'run.sh'), '#!/bin/sh\n');
    await chmod(path.join(source, 'run.sh'), 0o750);
    await symlink('a/b/deep.txt', path.join(source, 'link'));

    const packed = await fetch(archiveUrl(t, source));
    expect(packed.status).toBe(200);
    expect(packed.headers.get('content-type')).toBe(TAR);
    const body = Buffer.from(await packed.arrayBuffer());

    const target = path.join(t.dir, 'copy/nested');
    const answer = await extract(t, target, body);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ files: 2, directories: 3, symlinks: 1, bytes: 15 });
    expect(await listTree(target)).toEqual(await listTree(source));
    expect((await stat(path.join(target, 'run.sh'))).mode & 0o777).toBe(0o750);
    expect(await readFile(path.join(target, 'link'), 'utf8')).toBe('deep\n');
  });

  it('drops set-id bits and keeps the rest of the mode', async () => {
    const target = path.join(t.dir, 'setid');
    const body = await buildTar([{ name: 'suid', mode: 0o4755, content: 'x' }]);
    expect((await extract(t, target, body)).status).toBe(200);
    expect((await stat(path.join(target, 'suid'))).mode & 0o7777).toBe(0o755);
  });

  const hostile: [string, TarEntry[], RegExp][] = [
    ['a name with ..', [{ name: '../escaped', content: 'x' }], /"..\/escaped" has ".."/],
    ['an absolute name', [{ name: '/tmp/escaped', content: 'x' }], /absolute/],
    ['a hard link', [{ name: 'hard', type: 'link', linkname: 'other' }], /hard link/],
    ['a character device', [{ name: 'tty', type: 'character-device' }], /character-device/],
    ['a FIFO', [{ name: 'fifo', type: 'fifo' }], /fifo/],
    [
      'a file through a link of the archive',
      [
        { name: 'out', type: 'symlink', linkname: '..' },
        { name: 'out/escaped', content: 'x' },
      ],
      /through the symbolic link "out"/,
    ],
  ];
  for (const [what, entries, message] of hostile) {
    it(`refuses ${what} with 400 naming the entry`, async () => {
      const target = path.join(t.dir, 'hostile', what.replaceAll(' ', '-'));
      const answer = await extract(t, target, await buildTar(entries));
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { detail: string }).detail).toMatch(message);
      expect(await readdir(path.join(t.dir, 'hostile'))).not.toContain('escaped');
      expect((await readdir(target)).filter((name) => name.endsWith('.part'))).toEqual([]);
    });
  }

  it('refuses a file or link over a FIFO or socket with 400 naming the entry, as uploads do', async () => {
    const target = path.join(t.dir, 'specials');
    await mkdir(target);
    execFileSync('mkfifo', [path.join(target, 'pipe')]);
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(path.join(target, 'sock'), resolve));
    try {
      const cases: [TarEntry, RegExp][] = [
        [{ name: 'pipe', content: 'x' }, /^archive entry "pipe" would replace a FIFO/],
        [
          { name: './sock', type: 'symlink', linkname: 'x' },
          /^archive entry ".\/sock" would replace a socket/,
        ],
      ];
      for (const [entry, message] of cases) {
        const answer = await extract(t, target, await buildTar([entry]));
        expect(answer.status).toBe(400);
        expect(((await answer.json()) as { detail: string }).detail).toMatch(message);
      }
      const form = new FormData();
      form.append('file', new Blob(['x']), 'pipe');
      const upload = await fetch(
        `${t.url}${AGENT_SERVER_ROUTES.fileUpload}?${new URLSearchParams({ path: path.join(target, 'pipe') })}`,
        { method: 'POST', body: form },
      );
      expect(upload.status).toBe(400);
      await upload.arrayBuffer();
      expect((await lstat(path.join(target, 'pipe'))).isFIFO()).toBe(true);
      expect((await lstat(path.join(target, 'sock'))).isSocket()).toBe(true);
      expect((await readdir(target)).sort()).toEqual(['pipe', 'sock']);
    } finally {
      listener.close();
    }
  });

  it('refuses every GNU sparse format of GNU tar --sparse with 400 naming the entry', async () => {
    for (const { format, archive } of await gnuSparseArchives(
      path.join(t.dir, 'sparse-source'),
      1024 * 1024,
    )) {
      const target = path.join(t.dir, 'sparse', format.replaceAll(' ', ''));
      const answer = await extract(t, target, archive);
      expect(answer.status, format).toBe(400);
      expect(((await answer.json()) as { detail: string }).detail).toMatch(
        /^archive entry "(.\/)?holes.bin" .*sparse/,
      );
      expect(await readdir(target)).toEqual([]);
    }
  });

  it('refuses a truncated archive, leaving no partial file', async () => {
    const target = path.join(t.dir, 'truncated');
    const body = await buildTar([{ name: 'big', content: Buffer.alloc(20_000, 7) }]);
    const answer = await extract(t, target, body.subarray(0, 10_000));
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { detail: string }).detail).toMatch(/not a valid tar/);
    expect(await readdir(target)).toEqual([]);
  });

  it('refuses garbage with 400', async () => {
    const answer = await extract(t, path.join(t.dir, 'garbage'), Buffer.alloc(2048, 'g'));
    expect(answer.status).toBe(400);
  });

  it('refuses more entries than the limit with 413 naming the entry', async () => {
    const entries = Array.from({ length: 21 }, (_, index) => ({
      name: `d${index}/`,
      type: 'directory' as const,
    }));
    const answer = await extract(t, path.join(t.dir, 'many'), await buildTar(entries));
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { detail: string }).detail).toMatch(/"d20\/".*limit is 20/);
  });

  it('refuses more content than maxUploadBytes with 413 before reading it', async () => {
    const body = await buildTar([{ name: 'huge', content: Buffer.alloc(65 * 1024) }]);
    const answer = await extract(t, path.join(t.dir, 'huge'), body);
    expect(answer.status).toBe(413);
    expect(await readdir(path.join(t.dir, 'huge'))).toEqual([]);
  });

  it('answers 404, 400 and 400 for a missing directory, a file and a relative path', async () => {
    expect((await fetch(archiveUrl(t, path.join(t.dir, 'missing')))).status).toBe(404);
    await writeFile(path.join(t.dir, 'plain'), 'x');
    expect((await fetch(archiveUrl(t, path.join(t.dir, 'plain')))).status).toBe(400);
    expect((await fetch(archiveUrl(t, 'relative'))).status).toBe(400);
  });

  it('lets go of every descriptor when the client leaves mid-download', async () => {
    const source = path.join(t.dir, 'left');
    await mkdir(path.join(source, 'sub'), { recursive: true });
    await writeFile(path.join(source, 'sub/large.bin'), Buffer.alloc(8 * 1024 * 1024, 5));
    const openDescriptors = async () => (await readdir('/proc/self/fd')).length;
    const before = await openDescriptors();
    const controller = new AbortController();
    const response = await fetch(archiveUrl(t, source), { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    await vi.waitFor(async () => expect(await openDescriptors()).toBeLessThanOrEqual(before), {
      timeout: 10_000,
    });
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });

  it('refuses a body that is not a tar with 415', async () => {
    const answer = await extract(t, path.join(t.dir, 'json'), Buffer.from('{}'), {
      'content-type': 'application/json',
    });
    expect(answer.status).toBe(415);
  });
});

describe('directory archive routes on a confined server', () => {
  let t: ConfinedTestServer;

  beforeAll(async () => {
    t = await startConfinedTestServer();
  });
  afterAll(() => t.close());

  it('refuses to pack or extract outside the working directory (403)', async () => {
    expect((await fetch(archiveUrl(t, t.outside))).status).toBe(403);
    expect((await fetch(archiveUrl(t, path.join(t.dir, 'escape')))).status).toBe(403);
    const answer = await extract(
      t,
      path.join(t.dir, 'escape/x'),
      await buildTar([{ name: 'f', content: 'x' }]),
    );
    expect(answer.status).toBe(403);
    expect(await readdir(t.outside)).toEqual([]);
  });

  it('refuses a file through a link that was already there', async () => {
    const answer = await extract(t, t.dir, await buildTar([{ name: 'escape/f', content: 'x' }]));
    expect(answer.status).toBe(400);
    expect(await readdir(t.outside)).toEqual([]);
  });

  it('stores links as links and leaves files with several names out', async () => {
    const source = path.join(t.dir, 'packed');
    await mkdir(source);
    await writeFile(path.join(source, 'one'), '1');
    await symlink(t.outside, path.join(source, 'out'));
    const { link } = await import('node:fs/promises');
    await link(path.join(source, 'one'), path.join(source, 'two'));
    await writeFile(path.join(source, 'single'), 's');
    const body = Buffer.from(await (await fetch(archiveUrl(t, source))).arrayBuffer());
    const target = path.join(t.dir, 'unpacked');
    expect((await extract(t, target, body)).status).toBe(200);
    expect(await listTree(target)).toEqual([`out -> ${t.outside}`, 'single']);
    expect((await lstat(path.join(target, 'out'))).isSymbolicLink()).toBe(true);
  });
});

describe('directory archive routes with a session key', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ sessionApiKeys: ['secret'] });
  });
  afterAll(() => t.close());

  it('answers 401 without the key, both ways', async () => {
    expect((await fetch(archiveUrl(t, t.dir))).status).toBe(401);
    const answer = await extract(t, t.dir, await buildTar([{ name: 'f', content: 'x' }]));
    expect(answer.status).toBe(401);
    expect(await readdir(t.dir)).toEqual([]);
  });
});
