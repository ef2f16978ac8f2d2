import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { openSocket, parseResponse, type RawResponse } from './http.js';
import { KEY } from './server-process.js';

/** A websocket client (the `ws` package) that keeps every JSON frame it received. */
export class WsClient {
  readonly socket: WebSocket;
  readonly frames: Record<string, unknown>[] = [];
  /** Resolves with the close code and reason once the connection closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  #waiters = new Set<() => void>();

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => {
      socket.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const wake of this.#waiters) wake();
      });
    });
    socket.on('message', (data) => {
      try {
        this.frames.push(JSON.parse(data.toString()) as Record<string, unknown>);
      } catch {
        this.frames.push({ unparsable: data.toString() });
      }
      for (const wake of this.#waiters) wake();
    });
  }

  /** Connects to `path` of the server; sends the auth frame first unless `auth` is false. */
  static async connect(url: string, path: string, auth: string | false = KEY): Promise<WsClient> {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`);
    socket.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`upgrade refused with ${response.statusCode}`)),
      );
    });
    const client = new WsClient(socket);
    if (auth !== false) client.send({ type: 'auth', session_api_key: auth });
    return client;
  }

  /** Sends a frame: objects as JSON, strings and buffers as they are. */
  send(frame: unknown): void {
    const data =
      typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : JSON.stringify(frame);
    this.socket.send(data);
  }

  /** True once the connection closed. */
  get isClosed(): boolean {
    return this.socket.readyState === WebSocket.CLOSED;
  }

  /**
   * The first frame received from index `from` on that matches, waiting up to `timeoutMs`;
   * `undefined` when none came (or the socket closed first).
   */
  async waitFor(
    match: (frame: Record<string, unknown>) => boolean,
    timeoutMs = 15_000,
    from = 0,
  ): Promise<Record<string, unknown> | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      if (this.isClosed || Date.now() >= deadline) return undefined;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(1, deadline - Date.now()));
        this.#waiters.add(wake);
      });
    }
  }

  /** Closes the connection (a clean close), or drops it at once with `terminate`. */
  close(terminate = false): void {
    if (terminate) this.socket.terminate();
    else this.socket.close();
  }
}

/** A websocket handshake done by hand, for sending frames `ws` would never send. */
export interface RawWebSocket {
  socket: Socket;
  /** The handshake's answer (101 when accepted). */
  response: RawResponse;
  /** Bytes that came after the handshake's answer. */
  received: Buffer;
}

/** Opens `path` with a hand-written upgrade request (optionally with replaced headers). */
export async function rawWebSocket(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawWebSocket> {
  const socket = await openSocket(port);
  const all: Record<string, string> = {
    Host: '127.0.0.1',
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
    ...headers,
  };
  const head = [`GET ${path} HTTP/1.1`, ...Object.entries(all).map(([n, v]) => `${n}: ${v}`)];
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  let received = Buffer.alloc(0);
  const response = await new Promise<RawResponse>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no handshake answer within 15 s')), 15_000);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseResponse(received);
      if (!parsed) return;
      clearTimeout(timer);
      socket.off('data', onData);
      const end =
        received.indexOf('\r\n\r\n') + 4 + (parsed.status === 101 ? 0 : parsed.body.length);
      received = received.subarray(end);
      resolve(parsed);
    };
    socket.on('data', onData);
    socket.once('close', () => {
      clearTimeout(timer);
      const parsed = parseResponse(received, true);
      if (parsed) resolve(parsed);
      else reject(new Error('closed before a handshake answer'));
    });
  });
  return { socket, response, received };
}

/** Fields of a hand-made frame. */
export interface FrameSpec {
  opcode: number;
  payload?: Buffer;
  fin?: boolean;
  /** The RSV1-3 bits (0-7). */
  rsv?: number;
  /** Clients must mask; `false` sends an unmasked frame. */
  mask?: boolean;
  /** A length to announce instead of the payload's (64-bit form). */
  announcedLength?: bigint;
}

/** Encodes one websocket frame as a client would (masked unless told otherwise). */
export function encodeFrame(spec: FrameSpec): Buffer {
  const payload = spec.payload ?? Buffer.alloc(0);
  const mask = spec.mask ?? true;
  const first = ((spec.fin ?? true) ? 0x80 : 0) | ((spec.rsv ?? 0) << 4) | spec.opcode;
  let header: Buffer;
  const length = spec.announcedLength ?? BigInt(payload.length);
  if (spec.announcedLength !== undefined || length > 65_535n) {
    header = Buffer.alloc(10);
    header[1] = 127;
    header.writeBigUInt64BE(length, 2);
  } else if (length > 125n) {
    header = Buffer.alloc(4);
    header[1] = 126;
    header.writeUInt16BE(Number(length), 2);
  } else {
    header = Buffer.alloc(2);
    header[1] = Number(length);
  }
  header[0] = first;
  if (!mask) return Buffer.concat([header, payload]);
  header[1] = (header[1] as number) | 0x80;
  const key = randomBytes(4);
  const masked = Buffer.from(payload);
  for (let index = 0; index < masked.length; index++) {
    masked[index] = (masked[index] as number) ^ (key[index % 4] as number);
  }
  return Buffer.concat([header, key, masked]);
}

/**
 * Waits until the server closes the raw connection (up to `timeoutMs`); resolves with the close
 * code of a close frame it sent, if any, and whether the connection ended.
 */
export function awaitServerClose(
  raw: RawWebSocket,
  timeoutMs = 15_000,
): Promise<{ ended: boolean; closeCode: number | undefined }> {
  return new Promise((resolve) => {
    let received = raw.received;
    const closeCode = (): number | undefined => {
      // Unmasked server frames: find a close frame (opcode 8) with a code.
      let offset = 0;
      while (offset + 2 <= received.length) {
        const opcode = (received[offset] as number) & 0x0f;
        let length = (received[offset + 1] as number) & 0x7f;
        let start = offset + 2;
        if (length === 126) {
          length = received.readUInt16BE(start);
          start += 2;
        } else if (length === 127) {
          length = Number(received.readBigUInt64BE(start));
          start += 8;
        }
        if (opcode === 8 && length >= 2 && start + 2 <= received.length) {
          return received.readUInt16BE(start);
        }
        offset = start + length;
      }
      return undefined;
    };
    const timer = setTimeout(() => {
      raw.socket.destroy();
      resolve({ ended: false, closeCode: closeCode() });
    }, timeoutMs);
    raw.socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    raw.socket.on('error', () => {});
    raw.socket.once('close', () => {
      clearTimeout(timer);
      resolve({ ended: true, closeCode: closeCode() });
    });
    if (raw.socket.destroyed) {
      clearTimeout(timer);
      resolve({ ended: true, closeCode: closeCode() });
    }
  });
}
