import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConfinedTestServer,
  startConfinedTestServer,
} from '../test-support/start-confined-test-server.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

/** Uploads `content` as the multipart part `field` (default `file`) to `path`. */
function upload(t: TestServer, target: string, content: Blob | string, field = 'file') {
  const form = new FormData();
  form.append(field, typeof content === 'string' ? new Blob([content]) : content, 'upload.bin');
  const query = new URLSearchParams({ path: target });
  return fetch(`${t.url}/api/file/upload?${query}`, { method: 'POST', body: form });
}

function download(t: TestServer, target: string) {
  return fetch(`${t.url}/api/file/download?${new URLSearchParams({ path: target })}`);
}

async function sha256(stream: Readable | ReadableStream<Uint8Array>): Promise<string> {
  const hash = createHash('sha256');
  const source = stream instanceof Readable ? stream : Readable.fromWeb(stream as never);
  await pipeline(source, hash);
  return hash.digest('hex');
}

describe('file routes', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ maxUploadBytes: 1024 * 1024 });
  });
  afterAll(() => t.close());

  describe('POST /api/file/upload', () => {
    it('writes the file, creating parent directories', async () => {
      const target = path.join(t.dir, 'new/nested/hello.txt');
      const response = await upload(t, target, 'hello\n');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ success: true });
      expect(await readFile(target, 'utf8')).toBe('hello\n');
      expect(await readdir(path.dirname(target))).toEqual(['hello.txt']);
    });

    it('replaces an existing file, keeping its permission bits', async () => {
      const target = path.join(t.dir, 'replace.sh');
      await writeFile(target, 'old');
      await chmod(target, 0o750);
      expect((await upload(t, target, 'new')).status).toBe(200);
      expect(await readFile(target, 'utf8')).toBe('new');
      expect((await stat(target)).mode & 0o777).toBe(0o750);
    });

    it('writes through a symbolic link instead of replacing it', async () => {
      const real = path.join(t.dir, 'real.txt');
      const link = path.join(t.dir, 'link.txt');
      await writeFile(real, 'old');
      await symlink(real, link);
      expect((await upload(t, link, 'through')).status).toBe(200);
      expect(await readFile(real, 'utf8')).toBe('through');
    });

    it('rejects a relative path like OpenHands', async () => {
      const response = await upload(t, 'relative.txt', 'x');
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ detail: 'Path must be absolute' });
    });

    it('names the missing path query parameter', async () => {
      const form = new FormData();
      form.append('file', new Blob(['x']), 'x');
      const response = await fetch(`${t.url}/api/file/upload`, { method: 'POST', body: form });
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({
        detail: [{ type: 'missing', loc: ['query', 'path'], msg: 'Field required', input: {} }],
      });
    });

    it('names the missing file part, multipart or not', async () => {
      const missing = {
        detail: [{ type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null }],
      };
      const target = path.join(t.dir, 'never.txt');
      const wrongField = await upload(t, target, 'x', 'document');
      expect(wrongField.status).toBe(422);
      expect(await wrongField.json()).toEqual(missing);

      const query = new URLSearchParams({ path: target });
      const json = await fetch(`${t.url}/api/file/upload?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(json.status).toBe(422);
      expect(await json.json()).toEqual(missing);
      await expect(stat(target)).rejects.toThrow(/ENOENT/);
    });

    it('answers 422 json_invalid for a malformed JSON body', async () => {
      const query = new URLSearchParams({ path: path.join(t.dir, 'x') });
      const response = await fetch(`${t.url}/api/file/upload?${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"file":',
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({
        detail: [
          {
            type: 'json_invalid',
            loc: ['body'],
            msg: 'JSON decode error',
            input: {},
            ctx: { error: expect.any(String) },
          },
        ],
      });
    });

    it('answers 400 when a file is in the way of the parent directory', async () => {
      const blocker = path.join(t.dir, 'blocker');
      await writeFile(blocker, 'a file');
      const response = await upload(t, path.join(blocker, 'sub/file.txt'), 'x');
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        detail: `Parent path is not a directory: ${blocker}`,
      });
      expect(await readFile(blocker, 'utf8')).toBe('a file');
    });

    it('answers 400 when the destination is a directory', async () => {
      const directory = path.join(t.dir, 'a-directory');
      await mkdir(directory);
      const response = await upload(t, directory, 'x');
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ detail: 'Path is a directory' });
      expect(await readdir(directory)).toEqual([]);
    });

    it('answers 413 past maxUploadBytes and leaves no file behind', async () => {
      const directory = path.join(t.dir, 'limits');
      await mkdir(directory);
      const existing = path.join(directory, 'existing.bin');
      await writeFile(existing, 'keep me');

      const tooBig = new Blob([Buffer.alloc(1024 * 1024 + 1, 1)]);
      for (const target of [existing, path.join(directory, 'fresh.bin')]) {
        const response = await upload(t, target, tooBig);
        expect(response.status).toBe(413);
        expect(await response.json()).toEqual({
          detail: 'File too large: limit is 1048576 bytes',
        });
      }
      expect(await readdir(directory)).toEqual(['existing.bin']);
      expect(await readFile(existing, 'utf8')).toBe('keep me');

      // Exactly the limit is accepted.
      const exact = path.join(directory, 'exact.bin');
      expect((await upload(t, exact, new Blob([Buffer.alloc(1024 * 1024, 2)]))).status).toBe(200);
      expect((await stat(exact)).size).toBe(1024 * 1024);
    });
  });

  describe('GET /api/file/download', () => {
    it('streams the file as an attachment', async () => {
      const source = path.join(t.dir, 'report.txt');
      await writeFile(source, 'contents');
      const response = await download(t, source);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="report.txt"');
      expect(response.headers.get('content-length')).toBe('8');
      expect(await response.text()).toBe('contents');
    });

    it('encodes a non-ASCII file name (RFC 6266) and serves an empty file', async () => {
      const source = path.join(t.dir, 'naïve €.txt');
      await writeFile(source, '');
      const response = await download(t, source);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="na\u00efve ?.txt"; filename*=UTF-8''na%C3%AFve%20%E2%82%AC.txt`,
      );
      expect(response.headers.get('content-length')).toBe('0');
      expect(await response.text()).toBe('');
    });

    it('answers OpenHands errors', async () => {
      const plain = path.join(t.dir, 'plain.txt');
      await writeFile(plain, 'x');
      const cases: [string, number, unknown][] = [
        ['relative.txt', 400, { detail: 'Path must be absolute' }],
        [path.join(t.dir, 'missing.txt'), 404, { detail: 'File not found' }],
        [path.join(plain, 'below'), 404, { detail: 'File not found' }],
        [t.dir, 400, { detail: 'Path is not a file' }],
      ];
      for (const [target, status, body] of cases) {
        const response = await download(t, target);
        expect(response.status).toBe(status);
        expect(await response.json()).toEqual(body);
      }
      const missingQuery = await fetch(`${t.url}/api/file/download`);
      expect(missingQuery.status).toBe(422);
      expect(await missingQuery.json()).toEqual({
        detail: [{ type: 'missing', loc: ['query', 'path'], msg: 'Field required', input: {} }],
      });
      const repeated = await fetch(`${t.url}/api/file/download?path=/a&path=/b`);
      expect(repeated.status).toBe(422);
      expect(await repeated.json()).toEqual({
        detail: [
          {
            type: 'string_type',
            loc: ['query', 'path'],
            msg: 'Input should be a valid string',
            input: ['/a', '/b'],
          },
        ],
      });
    });
  });

  it('round-trips 64 MiB byte for byte, streaming both ways', async () => {
    const big = await startTestServer({ maxUploadBytes: 256 * 1024 * 1024 });
    try {
      const source = path.join(big.dir, 'source.bin');
      const chunk = Buffer.alloc(1024 * 1024);
      await pipeline(
        Readable.from(
          (function* () {
            for (let index = 0; index < 64; index += 1) yield chunk.fill(index * 7 + 1);
          })(),
        ),
        createWriteStream(source),
      );
      const expected = await sha256(createReadStream(source));

      const target = path.join(big.dir, 'copy/target.bin');
      const uploaded = await upload(big, target, await openAsBlob(source));
      expect(await uploaded.json()).toEqual({ success: true });
      expect(await sha256(createReadStream(target))).toBe(expected);

      const downloaded = await download(big, target);
      expect(downloaded.headers.get('content-length')).toBe(String(64 * 1024 * 1024));
      expect(await sha256(downloaded.body as ReadableStream<Uint8Array>)).toBe(expected);
    } finally {
      await big.close();
    }
  });

  describe('with confineToWorkingDir', () => {
    let confined: ConfinedTestServer;
    let outside: string;

    beforeAll(async () => {
      confined = await startConfinedTestServer();
      outside = confined.outside;
      await writeFile(path.join(outside, 'secret.txt'), 'secret');
      await writeFile(path.join(confined.dir, 'inside.txt'), 'inside');
    });
    afterAll(async () => {
      await confined.close();
    });

    it('serves paths inside the working directory', async () => {
      const response = await download(confined, path.join(confined.dir, 'inside.txt'));
      expect(await response.text()).toBe('inside');
    });

    it('answers 403 for a symlink that leads outside, and writes nothing there', async () => {
      const viaLink = path.join(confined.dir, 'escape/secret.txt');
      const read = await download(confined, viaLink);
      expect(read.status).toBe(403);
      expect(await read.json()).toEqual({
        detail: `path is outside the working directory: ${viaLink}`,
      });

      const written = path.join(confined.dir, 'escape/planted.txt');
      const write = await upload(confined, written, 'x');
      expect(write.status).toBe(403);
      expect(await write.json()).toEqual({
        detail: `path is outside the working directory: ${written}`,
      });
      expect(await readdir(outside)).toEqual(['secret.txt']);
    });

    it('answers 403 for an absolute path outside', async () => {
      const response = await download(confined, path.join(outside, 'secret.txt'));
      expect(response.status).toBe(403);
    });
  });
});
