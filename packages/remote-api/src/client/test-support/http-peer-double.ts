import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the double received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as text (`''` when there was none). */
  body: string;
}

/** What the double answers: status, JSON body (or raw text) and extra headers. */
export interface DoubleReply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** Picks the reply to a request. */
export type DoubleHandler = (request: RecordedRequest) => DoubleReply | Promise<DoubleReply>;

/**
 * Test double of an HTTP peer (a Runtime API): a real `node:http` server on loopback that
 * answers with whatever `handler` says and records every request, so tests can check what a
 * client sent (headers included) and how it maps each answer.
 */
export class HttpPeerDouble {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  handler: DoubleHandler;

  private constructor(handler: DoubleHandler) {
    this.handler = handler;
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const recorded: RecordedRequest = {
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(recorded);
        const reply = await this.handler(recorded);
        const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
        response.writeHead(reply.status, {
          ...(reply.json !== undefined && { 'content-type': 'application/json' }),
          ...reply.headers,
        });
        response.end(body);
      });
    });
  }

  /** Starts a double on a free loopback port. */
  static async start(handler: DoubleHandler): Promise<HttpPeerDouble> {
    const double = new HttpPeerDouble(handler);
    await new Promise<void>((resolve) => double.#server.listen(0, '127.0.0.1', resolve));
    return double;
  }

  /** Base URL of the double. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Stops listening and drops open connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
