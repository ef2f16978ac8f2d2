import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gnuSparseArchives } from '../src/test-support/gnu-sparse-archives.js';
import { Figures } from './support/figures.js';
import { type Answer, call, openSocket } from './support/http.js';
import {
  AUTH,
  createScratch,
  partFiles,
  type Scratch,
  ServerProcess,
  waitFor,
} from './support/server-process.js';
import { buildTar, type TarEntry, withDeclaredSize } from './support/tar.js';

/** `--max-archive-entries` of the server under test. */
const MAX_ENTRIES = 100;

/** `--max-upload-bytes` of the server under test (also the archive content limit). */
const MAX_BYTES = 1024 * 1024;

describe('hostile directory archives', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  /** A directory beside the working directory that nothing may reach. */
  let outside: string;
  const figures = new Figures('directory archives');

  beforeAll(async () => {
    scratch = await createScratch('archive');
    outside = path.join(scratch.base, 'outside');
    await mkdir(outside);
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: [
        '--confine-to-working-dir',
        '--max-archive-entries',
        String(MAX_ENTRIES),
        '--max-upload-bytes',
        String(MAX_BYTES),
      ],
    });
  });
  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    figures.save();
    await server?.stop();
    await scratch?.remove();
  });

  const archiveTarget = (target: string) =>
    `${server.url}${AGENT_SERVER_ROUTES.directoryArchive}?${new URLSearchParams({ path: target })}`;

  /** Posts `body` into a fresh directory of the working directory. */
  async function extractInto(name: string, body: Buffer): Promise<{ answer: Answer; dir: string }> {
    const dir = path.join(scratch.workingDir, name);
    const answer = await call(archiveTarget(dir), {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/x-tar' },
      body,
    });
    return { answer, dir };
  }

  /** Checks what must hold after every hostile archive, and counts it. */
  async function expectRefused(answer: Answer, status: number, reason: RegExp): Promise<void> {
    figures.tried++;
    const detail = (answer.json as { detail?: unknown } | undefined)?.detail;
    const escaped =
      readdirSync(outside).length > 0 ||
      existsSync(path.join(scratch.base, 'x')) ||
      partFiles(scratch.base).length > 0;
    const health = await call(`${server.url}/health`);
    if (answer.status === status && !escaped && health.status === 200) figures.rejected++;
    else figures.escapes++;
    expect(answer.status, answer.text).toBe(status);
    expect(String(detail)).toMatch(reason);
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(path.join(scratch.base, 'x'))).toBe(false);
    expect(partFiles(scratch.base)).toEqual([]);
    expect(health.status).toBe(200);
  }

  const cases: [string, () => Promise<TarEntry[]>, RegExp][] = [
    ['../x', async () => [{ name: '../../x', content: 'escape' }], /"..\/..\/x" has "\.\."/],
    [
      'an absolute name',
      async () => [{ name: path.join(outside, 'x'), content: 'escape' }],
      /absolute/,
    ],
    [
      'a link, then a file through it',
      async () => [
        { name: 'out', type: 'symlink', linkname: outside },
        { name: 'out/x', content: 'escape' },
      ],
      /"out\/x" would be written through the symbolic link "out"/,
    ],
    [
      'a hard link',
      async () => [{ name: 'x', type: 'link', linkname: '/etc/passwd' }],
      /hard link/,
    ],
    [
      'a character device',
      async () => [{ name: 'x', type: 'character-device', devmajor: 1, devminor: 3 }],
      /character-device/,
    ],
  ];
  for (const [what, entries, reason] of cases) {
    it(`refuses ${what} with 400 naming the entry`, async () => {
      const { answer } = await extractInto(
        `case-${figures.tried}`,
        await buildTar(await entries()),
      );
      await expectRefused(answer, 400, reason);
    });
  }

  it('refuses a file or link over a FIFO, socket or device already there, never opening it', async () => {
    const dir = path.join(scratch.workingDir, 'specials');
    await mkdir(dir);
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(path.join(dir, 'sock'), resolve));
    const specials: [string, string][] = [
      ['pipe', 'FIFO'],
      ['sock', 'socket'],
    ];
    // Making a device node needs CAP_MKNOD.
    if (process.getuid?.() === 0) {
      execFileSync('mknod', [path.join(dir, 'null'), 'c', '1', '3']);
      specials.push(['null', 'character device']);
    }
    // A reader on the FIFO would see any byte written into it.
    const reader = spawn('cat', [path.join(dir, 'pipe')], { stdio: ['ignore', 'pipe', 'ignore'] });
    let leaked = '';
    reader.stdout.on('data', (chunk: Buffer) => {
      leaked += chunk.toString();
    });
    try {
      for (const [name, kind] of specials) {
        for (const entry of [
          { name, content: 'replaced' },
          { name, content: Buffer.alloc(200_000, 'r') },
          { name, type: 'symlink' as const, linkname: outside },
        ]) {
          const answer = await call(archiveTarget(dir), {
            method: 'POST',
            headers: { ...AUTH, 'content-type': 'application/x-tar' },
            body: await buildTar([entry]),
          });
          await expectRefused(
            answer,
            400,
            new RegExp(`^archive entry "${name}" would replace a ${kind}, which is refused`),
          );
        }
      }
      expect(lstatSync(path.join(dir, 'pipe')).isFIFO()).toBe(true);
      expect(lstatSync(path.join(dir, 'sock')).isSocket()).toBe(true);
      if (specials.length > 2)
        expect(lstatSync(path.join(dir, 'null')).isCharacterDevice()).toBe(true);
      expect(partFiles(dir)).toEqual([]);
      expect(leaked).toBe('');
    } finally {
      listener.close();
      reader.kill();
    }
  });

  it('refuses GNU sparse entries of every format GNU tar --sparse writes (400 naming the entry)', async () => {
    const archives = await gnuSparseArchives(
      path.join(scratch.base, 'sparse-source'),
      4 * 1024 * 1024,
    );
    for (const { format, archive } of archives) {
      const { answer, dir } = await extractInto(`sparse ${format}`, archive);
      await expectRefused(answer, 400, /^archive entry "holes\.bin" .*sparse/);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('refuses a truncated archive, leaving no partial file', async () => {
    const whole = await buildTar([
      { name: 'done.txt', content: 'complete' },
      { name: 'cut.bin', content: Buffer.alloc(200_000, 1) },
    ]);
    const { answer, dir } = await extractInto('truncated', whole.subarray(0, 100_000));
    await expectRefused(answer, 400, /not a valid tar stream/);
    expect(readdirSync(dir)).toEqual(['done.txt']);
    expect(await readFile(path.join(dir, 'done.txt'), 'utf8')).toBe('complete');
  });

  it('refuses a garbage body with 400', async () => {
    const { answer } = await extractInto('garbage', Buffer.alloc(64 * 1024, 'junk'));
    await expectRefused(answer, 400, /not a valid tar stream/);
  });

  it('refuses an entry declaring 8 GiB before reading it (413)', async () => {
    const body = withDeclaredSize(
      await buildTar([{ name: 'huge', content: 'x' }]),
      8 * 1024 ** 3 - 1,
    );
    const { answer, dir } = await extractInto('huge', body);
    await expectRefused(answer, 413, /"huge".*limit is 1048576/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses one entry more than --max-archive-entries (413)', async () => {
    const entries = Array.from({ length: MAX_ENTRIES + 1 }, (_, index) => ({
      name: `d${index}/`,
      type: 'directory' as const,
    }));
    const { answer } = await extractInto('many', await buildTar(entries));
    await expectRefused(answer, 413, new RegExp(`"d${MAX_ENTRIES}/".*limit is ${MAX_ENTRIES}`));
  });

  it('refuses content over --max-upload-bytes (413), keeping the files before it whole', async () => {
    const half = Buffer.alloc(MAX_BYTES / 2, 2);
    const body = await buildTar([
      { name: 'a', content: half },
      { name: 'b', content: half },
      { name: 'c', content: half },
    ]);
    const { answer, dir } = await extractInto('bytes', body);
    await expectRefused(answer, 413, /"c" takes the archive/);
    expect(readdirSync(dir).sort()).toEqual(['a', 'b']);
  });

  it('leaves nothing behind when the client drops mid-upload', async () => {
    figures.tried++;
    const dir = path.join(scratch.workingDir, 'dropped');
    const body = await buildTar([{ name: 'big.bin', content: Buffer.alloc(MAX_BYTES - 4096, 3) }]);
    const socket = await openSocket(server.port);
    const target = `${AGENT_SERVER_ROUTES.directoryArchive}?${new URLSearchParams({ path: dir })}`;
    socket.write(
      `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-session-api-key: ${AUTH['x-session-api-key']}\r\n` +
        `Content-Type: application/x-tar\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, body.length / 2));
    // The server has created the temporary file before the client goes.
    await waitFor(() => partFiles(scratch.workingDir).length > 0, 10_000);
    socket.destroy();
    await waitFor(() => partFiles(scratch.base).length === 0, 10_000);
    const health = await call(`${server.url}/health`);
    const clean = readdirSync(dir).length === 0 && health.status === 200;
    if (clean) figures.rejected++;
    else figures.escapes++;
    expect(readdirSync(dir)).toEqual([]);
    expect(health.status).toBe(200);
  });
});
