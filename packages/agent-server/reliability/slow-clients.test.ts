import { closeSync, ftruncateSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import {
  call,
  downloadTarget,
  multipartFraming,
  openSocket,
  type RawExchange,
  readExchange,
  requestHead,
  uploadTarget,
} from './support/http.js';
import {
  AUTH,
  createScratch,
  KEY,
  partFiles,
  type Scratch,
  ServerProcess,
  waitFor,
} from './support/server-process.js';

/** `--body-idle-timeout-seconds` of the server under test. */
const IDLE_SECONDS = 2;

/** A generous upper bound for "the server reacts to a stalled body at all". */
const BOUND_MS = (IDLE_SECONDS + 8) * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('slow and vanishing clients', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let baseline: number;
  const figures = new Figures('slow clients');

  beforeAll(async () => {
    scratch = await createScratch('slow');
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: ['--body-idle-timeout-seconds', String(IDLE_SECONDS)],
    });
    // Warm up (a command, an upload, a download) so lazily opened descriptors are in the baseline.
    const form = multipartFraming();
    await call(`${server.url}${uploadTarget(path.join(scratch.workingDir, 'warm.txt'))}`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': form.contentType, connection: 'close' },
      body: Buffer.concat([form.head, Buffer.from('warm'), form.tail]),
    });
    await call(`${server.url}${downloadTarget(path.join(scratch.workingDir, 'warm.txt'))}`, {
      headers: { ...AUTH, connection: 'close' },
    });
    await call(`${server.url}/api/bash/execute_bash_command`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', connection: 'close' },
      body: '{"command":"true"}',
    });
    baseline = await server.settledDescriptors();
  });
  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    figures.save();
    await server?.stop();
    await scratch?.remove();
  });

  /** Counts one hostile client; `refused` when the server cut it off as the contract says. */
  function count(refused: boolean): void {
    figures.tried++;
    if (refused) figures.rejected++;
    else figures.escapes++;
  }

  /** Opens a connection and sends the head of an upload of `declared` body bytes. */
  async function startUpload(name: string, declared: number, key: string | null = KEY) {
    const framing = multipartFraming();
    const socket = await openSocket(server.port);
    socket.on('error', () => {});
    const head = requestHead('POST', uploadTarget(path.join(scratch.workingDir, name)), {
      ...(key === null ? {} : { 'X-Session-API-Key': key }),
      'Content-Type': framing.contentType,
      'Content-Length': declared,
    });
    socket.write(head);
    return { socket, framing };
  }

  /** Writes one byte every `intervalMs` until the connection closes or `max` bytes went. */
  function trickle(socket: Socket, intervalMs: number, max = 10_000): () => void {
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || sent >= max) {
        clearInterval(timer);
        return;
      }
      socket.write('x');
      sent++;
    }, intervalMs);
    return () => clearInterval(timer);
  }

  async function expectNoLeftovers(): Promise<void> {
    expect(await waitFor(() => partFiles(scratch.workingDir).length === 0, 10_000)).toBe(true);
    const now = await server.settledDescriptors();
    expect(
      now,
      `descriptors ${baseline} before, now ${server.describeDescriptors()}`,
    ).toBeLessThanOrEqual(baseline);
    expect((await call(`${server.url}/alive`)).status).toBe(200);
  }

  it('(a) answers a stalled body with 408 "Request body timed out" and closes the connection', async () => {
    for (const route of ['/api/bash/execute_bash_command', 'upload']) {
      let exchange: RawExchange;
      if (route === 'upload') {
        const { socket, framing } = await startUpload('stalled.bin', 1024 * 1024);
        socket.write(framing.head);
        socket.write(Buffer.alloc(1000));
        exchange = await readExchange(socket, { timeoutMs: BOUND_MS, waitForClose: true });
      } else {
        const socket = await openSocket(server.port);
        socket.on('error', () => {});
        socket.write(
          requestHead('POST', route, {
            'X-Session-API-Key': KEY,
            'Content-Type': 'application/json',
            'Content-Length': 100,
          }),
        );
        socket.write('{"command":');
        exchange = await readExchange(socket, { timeoutMs: BOUND_MS, waitForClose: true });
      }
      const body = exchange.response?.body.toString() ?? '';
      count(exchange.response?.status === 408 && exchange.closed);
      expect(exchange.response?.status, `${route}: ${body}`).toBe(408);
      expect(JSON.parse(body).detail).toMatch(/^Request body timed out: /);
      expect(exchange.closed, `${route}: the connection stayed open`).toBe(true);
    }
    await expectNoLeftovers();
  });

  it('(b) cuts a body trickled at 1 byte per 500 ms once the idle window has passed', async () => {
    const { socket, framing } = await startUpload('trickled.bin', 1024 * 1024);
    socket.write(framing.head);
    const stop = trickle(socket, 500);
    const exchange = await readExchange(socket, { timeoutMs: BOUND_MS + 5000, waitForClose: true });
    stop();
    const cut =
      exchange.closed && (exchange.response === undefined || exchange.response.status === 408);
    count(cut);
    expect(exchange.closed, 'the trickling connection was not closed in time').toBe(true);
    if (exchange.response) expect(exchange.response.status).toBe(408);
    await expectNoLeftovers();
  });

  it('(c) answers an unauthenticated trickle 401 at once and closes it after the linger', async () => {
    const { socket } = await startUpload('unauthenticated.bin', 1024 * 1024, null);
    const stop = trickle(socket, 500);
    const answered = await readExchange(socket, { timeoutMs: BOUND_MS });
    // `readExchange` stopped reading at the answer; watch the close from here.
    const closed = await new Promise<boolean>((resolve) => {
      if (socket.destroyed) resolve(true);
      const timer = setTimeout(() => resolve(false), (IDLE_SECONDS + 5 + 3) * 1000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
      socket.resume();
    });
    stop();
    socket.destroy();
    count(answered.response?.status === 401 && closed);
    expect(answered.response?.status).toBe(401);
    expect(JSON.parse(answered.response?.body.toString() ?? '{}')).toEqual({
      detail: 'Unauthorized',
    });
    // (The body never completes, so a 401 rather than a 408 can only have come at once.)
    expect(closed, 'the unauthenticated trickle was not closed within idle + 5 s').toBe(true);
  });

  it('(d) answers 400 "Invalid multipart body" at once to a body without its closing boundary', async () => {
    const framing = multipartFraming();
    const content = Buffer.alloc(64 * 1024, 7);
    // The whole body arrives (Content-Length is honest); it just never closes the part.
    const body = Buffer.concat([framing.head, content]);
    const socket = await openSocket(server.port);
    socket.on('error', () => {});
    socket.write(
      requestHead('POST', uploadTarget(path.join(scratch.workingDir, 'unterminated.bin')), {
        'X-Session-API-Key': KEY,
        'Content-Type': framing.contentType,
        'Content-Length': body.length,
      }),
    );
    socket.write(body);
    const exchange = await readExchange(socket, { timeoutMs: BOUND_MS });
    socket.destroy();
    const text = exchange.response?.body.toString() ?? '';
    count(exchange.response?.status === 400);
    expect(exchange.response?.status, text).toBe(400);
    // (A server waiting for more would have answered 408 after the idle timeout instead.)
    expect(JSON.parse(text).detail).toMatch(/^Invalid multipart body: /);
    await expectNoLeftovers();
  });

  it('(e) streams a 256 MiB file to a reader of 1 byte/s with flat memory, serving others meanwhile', async () => {
    const file = path.join(scratch.workingDir, 'large.bin');
    const fd = openSync(file, 'w');
    ftruncateSync(fd, 256 * 1024 * 1024);
    closeSync(fd);
    const before = server.sampleRss();
    server.resetPeakRss();
    const socket = await openSocket(server.port);
    socket.on('error', () => {});
    socket.write(requestHead('GET', downloadTarget(file), { 'X-Session-API-Key': KEY }));
    // Read the head, then one byte a second.
    socket.pause();
    let received = 0;
    const reader = setInterval(() => {
      const chunk = socket.read(1) as Buffer | null;
      if (chunk) received += chunk.length;
    }, 1000);
    const others: number[] = [];
    try {
      for (let round = 0; round < 8; round++) {
        const [alive, run] = await Promise.all([
          call(`${server.url}/alive`),
          call(`${server.url}/api/bash/execute_bash_command`, {
            method: 'POST',
            headers: { ...AUTH, 'content-type': 'application/json' },
            body: JSON.stringify({ command: `echo ${round}` }),
          }),
        ]);
        others.push(alive.status, run.status);
        await sleep(1000);
      }
    } finally {
      clearInterval(reader);
      socket.destroy();
    }
    const growth = server.peakRss - before;
    figures.note = `slow reader: +${Math.round(growth / 1024 ** 2)} MiB RSS over ${Math.round(before / 1024 ** 2)} MiB`;
    count(growth < 100 * 1024 ** 2);
    expect(received).toBeGreaterThan(0);
    expect(
      others.every((status) => status === 200),
      `other requests: ${others}`,
    ).toBe(true);
    expect(growth, `RSS grew by ${growth} bytes`).toBeLessThan(100 * 1024 ** 2);
    await expectNoLeftovers();
  });

  it('(f) leaves no temporary file and no descriptor behind when the uploader vanishes', async () => {
    for (const size of [1, 4 * 1024 * 1024]) {
      const { socket, framing } = await startUpload('vanished.bin', 16 * 1024 * 1024);
      socket.write(framing.head);
      socket.write(Buffer.alloc(size, 1));
      // Let the server create its temporary file and write into it.
      await waitFor(() => partFiles(scratch.workingDir).length > 0, 5000);
      socket.destroy();
      const clean = await waitFor(() => partFiles(scratch.workingDir).length === 0, 10_000);
      count(clean);
      expect(clean, `a .part file was left after a ${size}-byte upload was cut`).toBe(true);
    }
    await expectNoLeftovers();
  });
});
