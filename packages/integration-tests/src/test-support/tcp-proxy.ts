import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * Test double of the network between a client and a server: a real TCP proxy on loopback that
 * can cut every connection and refuse new ones (`cut()`), then accept again on the same port
 * (`restore()`), to simulate a dropped link or a server that went away.
 */
export class TcpProxy {
  readonly #targetPort: number;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  #port = 0;
  #connections = 0;

  private constructor(targetPort: number) {
    this.#targetPort = targetPort;
  }

  /** Starts a proxy on a free loopback port forwarding to `127.0.0.1:targetPort`. */
  static async start(targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetPort);
    await proxy.restore();
    return proxy;
  }

  /** Base URL of the proxy. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Client connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  /** Listens again (on the same port after a cut). */
  async restore(): Promise<void> {
    if (this.#server) return;
    const server = createServer((client) => {
      this.#connections++;
      const upstream = createConnection({ host: '127.0.0.1', port: this.#targetPort });
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Drops every connection (RST) and stops accepting new ones. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.resetAndDestroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
