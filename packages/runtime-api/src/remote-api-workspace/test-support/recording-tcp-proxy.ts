import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * Test double of the network between a client and a server: a real TCP proxy on loopback that
 * forwards every byte both ways and records them, so a test can prove what crossed this hop.
 * It can also fail now and then: each connection's first bytes are read before anything is
 * forwarded, and when they hold a text that {@link RecordingTcpProxy.cut} asked for, the
 * connection is reset instead (as when the server is unreachable). Client-first protocols only
 * (HTTP, WebSocket).
 */
export class RecordingTcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #sent: Buffer[] = [];
  readonly #received: Buffer[] = [];
  readonly #heads: string[] = [];
  readonly #cuts: { text: string; left: number }[] = [];

  private constructor(targetHost: string, targetPort: number) {
    this.#server = createServer((client) => {
      this.#track(client);
      client.on('error', () => client.destroy());
      client.once('data', (first: Buffer) => {
        const head = first.toString('latin1');
        this.#heads.push(head);
        const cut = this.#cuts.find(({ text, left }) => left > 0 && head.includes(text));
        if (cut !== undefined) {
          cut.left -= 1;
          client.resetAndDestroy();
          return;
        }
        this.#sent.push(Buffer.from(first));
        const upstream = createConnection({ host: targetHost, port: targetPort });
        this.#track(upstream);
        upstream.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
        client.on('data', (chunk: Buffer) => this.#sent.push(Buffer.from(chunk)));
        upstream.on('data', (chunk: Buffer) => this.#received.push(Buffer.from(chunk)));
        upstream.write(first);
        client.pipe(upstream);
        upstream.pipe(client);
      });
    });
  }

  /** Starts a proxy on a free loopback port forwarding to `targetHost:targetPort`. */
  static async start(targetHost: string, targetPort: number): Promise<RecordingTcpProxy> {
    const proxy = new RecordingTcpProxy(targetHost, targetPort);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** Base URL of the proxy. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Every byte clients sent through the proxy (towards the server). */
  sent(): Buffer {
    return Buffer.concat(this.#sent);
  }

  /** Every byte the server answered through the proxy (towards the clients). */
  received(): Buffer {
    return Buffer.concat(this.#received);
  }

  /** Resets the next `count` connections whose first bytes hold `text`. */
  cut(text: string, count: number): void {
    this.#cuts.push({ text, left: count });
  }

  /** How many connections so far began with bytes holding `text` (reset or forwarded). */
  seen(text: string): number {
    return this.#heads.filter((head) => head.includes(text)).length;
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }
}
