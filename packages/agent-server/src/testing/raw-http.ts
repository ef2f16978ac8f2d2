import { connect, type Socket } from 'node:net';

/** A response read off a raw socket. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
}

/** What a raw exchange gave. */
export interface RawExchange {
  /** The first complete response, if one came. */
  response: RawResponse | undefined;
  /** The server closed (or reset) the connection. */
  closed: boolean;
  /** The connection was reset or failed (e.g. `ECONNRESET`). */
  error: string | undefined;
  /** Milliseconds from the first write to the response (or to the close when none came). */
  elapsedMs: number;
}

/** Options of {@link rawExchange}. */
export interface RawExchangeOptions {
  /** Upper bound of the wait, default 15 s. */
  timeoutMs?: number | undefined;
  /** Wait for the connection to close after the response (up to the timeout). */
  waitForClose?: boolean | undefined;
}

/** Opens a TCP connection to a server on loopback. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Writes raw bytes to a new connection and reads the answer: resolves once a complete response
 * arrived (and, with `waitForClose`, the connection closed), the connection closed, or the
 * timeout passed.
 */
export async function rawExchange(
  port: number,
  data: string | Buffer,
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  const socket = await openSocket(port);
  const exchange = readExchange(socket, options);
  socket.write(data);
  return exchange;
}

/** Reads the answer of an already open socket as {@link rawExchange} does. */
export function readExchange(
  socket: Socket,
  options: RawExchangeOptions = {},
): Promise<RawExchange> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let response: RawResponse | undefined;
    let respondedAt: number | undefined;
    let error: string | undefined;
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.removeAllListeners('data');
      if (!closed) socket.destroy();
      resolve({
        response,
        closed,
        error,
        elapsedMs: (respondedAt ?? Date.now()) - started,
      });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (response) return;
      response = parseResponse(received);
      if (response) {
        respondedAt = Date.now();
        if (!options.waitForClose) finish(false);
      }
    });
    socket.once('error', (failure: NodeJS.ErrnoException) => {
      error = failure.code ?? failure.message;
    });
    socket.once('close', () => {
      // A response without a length ends with the connection.
      response ??= parseResponse(received, true);
      finish(true);
    });
  });
}

/** Parses one HTTP/1.1 response from `data`; `undefined` while it is incomplete. */
export function parseResponse(data: Buffer, atEnd = false): RawResponse | undefined {
  const headerEnd = data.indexOf('\r\n\r\n');
  if (headerEnd < 0) return undefined;
  const lines = data.subarray(0, headerEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const rest = data.subarray(headerEnd + 4);
  const code = Number(status[1]);
  if (code === 101 || code === 204 || code === 304) {
    return { status: code, headers, body: Buffer.alloc(0) };
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length < length) return undefined;
    return { status: code, headers, body: rest.subarray(0, length) };
  }
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const body = decodeChunked(rest);
    return body ? { status: code, headers, body } : undefined;
  }
  return atEnd ? { status: code, headers, body: rest } : undefined;
}

function decodeChunked(data: Buffer): Buffer | undefined {
  const chunks: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return undefined;
    if (size === 0) return Buffer.concat(chunks);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    chunks.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}

/** The request line and headers of a raw request (ends with the blank line). */
export function requestHead(
  method: string,
  target: string,
  headers: Record<string, string | number>,
): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}
