import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { truncate, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

/** What a raw HTTP/1.1 GET saw: the declared length, the body bytes and whether it closed. */
interface RawDownload {
  contentLength: number;
  bodyBytes: number;
  closedByServer: boolean;
}

/**
 * GETs `target` on a kept-alive connection, calling `onFirstBytes` once body bytes arrived (the
 * client hangs up when it rejects), and resolves when the server closes the connection or the
 * whole declared body came.
 */
function rawDownload(t: TestServer, target: string, onFirstBytes: () => Promise<void>) {
  return new Promise<RawDownload>((resolve, reject) => {
    const socket = connect(t.server.port, '127.0.0.1');
    const query = new URLSearchParams({ path: target });
    socket.write(
      `GET /api/file/download?${query} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`,
    );
    let head = Buffer.alloc(0);
    let contentLength = -1;
    let bodyBytes = 0;
    let notified = false;
    socket.on('data', (chunk: Buffer) => {
      if (contentLength < 0) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        contentLength = Number(
          /content-length: (\d+)/i.exec(head.subarray(0, end).toString())?.[1],
        );
        bodyBytes = head.length - end - 4;
      } else {
        bodyBytes += chunk.length;
      }
      if (bodyBytes >= contentLength) {
        socket.destroy();
        resolve({ contentLength, bodyBytes, closedByServer: false });
      } else if (!notified && bodyBytes > 0) {
        notified = true;
        socket.pause();
        void onFirstBytes().then(
          () => socket.resume(),
          (error: unknown) => {
            // The client goes away.
            socket.destroy();
            reject(error);
          },
        );
      }
    });
    socket.on('end', () => resolve({ contentLength, bodyBytes, closedByServer: true }));
    socket.on('error', reject);
  });
}

/** How many descriptors of this process (the server runs in it) have `file` open. */
function openCount(file: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) count += 1;
    } catch {
      // Closed meanwhile.
    }
  }
  return count;
}

describe('GET /api/file/download sent by hand', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ allowCorsOrigins: ['https://app.example.com'] });
  });
  afterAll(() => t.close());

  it('keeps the headers hooks set (CORS) and sends every byte', async () => {
    const file = path.join(t.dir, 'cors.bin');
    const content = Buffer.alloc(600 * 1024 + 3, 7);
    await writeFile(file, content);
    const response = await fetch(
      `${t.url}/api/file/download?${new URLSearchParams({ path: file })}`,
      {
        headers: { origin: 'https://app.example.com' },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(response.headers.get('content-length')).toBe(String(content.length));
    expect(Buffer.from(await response.arrayBuffer()).equals(content)).toBe(true);
    await vi.waitFor(() => expect(openCount(file)).toBe(0));
  });

  it('answers HEAD with the headers alone and closes the file', async () => {
    const file = path.join(t.dir, 'head.bin');
    await writeFile(file, Buffer.alloc(1024, 1));
    const response = await fetch(
      `${t.url}/api/file/download?${new URLSearchParams({ path: file })}`,
      {
        method: 'HEAD',
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('1024');
    expect(response.headers.get('content-disposition')).toContain('head.bin');
    expect(await response.text()).toBe('');
    await vi.waitFor(() => expect(openCount(file)).toBe(0));
  });

  it('closes the file when the client goes away mid-download', async () => {
    const file = path.join(t.dir, 'abandoned.bin');
    await writeFile(file, Buffer.alloc(32 * 1024 * 1024, 2));
    let seenOpen = 0;
    const seen = await rawDownload(t, file, async () => {
      seenOpen = openCount(file);
      throw new Error('gone');
    }).catch((error: Error) => error.message);
    expect(seen).toBe('gone');
    expect(seenOpen).toBe(1);
    await vi.waitFor(() => expect(openCount(file)).toBe(0));
    expect((await fetch(`${t.url}/alive`)).status).toBe(200);
  });
});

describe('GET /api/file/download of a file that changes size', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('cuts the connection when the file shrinks mid-download, never sending a short body', async () => {
    const file = path.join(t.dir, 'shrinking.bin');
    await writeFile(file, Buffer.alloc(32 * 1024 * 1024, 1));
    const seen = await rawDownload(t, file, () => truncate(file, 1024));
    expect(seen.contentLength).toBe(32 * 1024 * 1024);
    expect(seen.closedByServer).toBe(true);
    expect(seen.bodyBytes).toBeLessThan(seen.contentLength);
    // The server is fine afterwards.
    expect((await fetch(`${t.url}/alive`)).status).toBe(200);
  });

  it('cuts the connection for a pseudo-file whose size is larger than its content', async () => {
    // sysfs reports a page (4096 bytes) for "0-1\n".
    const lying = '/sys/devices/system/cpu/online';
    const seen = await rawDownload(t, lying, async () => {});
    expect(seen.contentLength).toBe(statSync(lying).size);
    expect(seen.closedByServer).toBe(true);
    expect(seen.bodyBytes).toBeLessThan(seen.contentLength);
  });
});
