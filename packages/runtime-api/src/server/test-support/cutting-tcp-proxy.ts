import {
  type AddressInfo,
  createConnection,
  createServer,
  type Server,
  type Socket,
} from 'node:net';

/**
 * Test double of a network that fails now and then: a real TCP proxy on loopback in front of
 * an HTTP server. Each connection's first bytes are read before anything is forwarded; when they
 * hold a text that {@link CuttingTcpProxy.cut} asked for, the connection is closed instead (the
 * client sees a reset, as when the server is unreachable). Everything else passes both ways.
 */
export class CuttingTcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #cuts: { text: string; left: number }[] = [];
  readonly #seen: string[] = [];

  private constructor(targetPort: number) {
    this.#server = createServer((client) => {
      this.#track(client);
      client.on('error', () => client.destroy());
      client.once('data', (first: Buffer) => {
        const head = first.toString('latin1');
        this.#seen.push(head);
        const cut = this.#cuts.find(({ text, left }) => left > 0 && head.includes(text));
        if (cut !== undefined) {
          cut.left -= 1;
          client.resetAndDestroy();
          return;
        }
        const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
        this.#track(upstream);
        upstream.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
        upstream.write(first);
        client.pipe(upstream);
        upstream.pipe(client);
      });
    });
  }

  /** Starts a proxy on a free loopback port in front of `127.0.0.1:targetPort`. */
  static async start(targetPort: number): Promise<CuttingTcpProxy> {
    const proxy = new CuttingTcpProxy(targetPort);
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

  /** Closes the next `count` connections whose first bytes hold `text`. */
  cut(text: string, count: number): void {
    this.#cuts.push({ text, left: count });
  }

  /** How many connections so far began with bytes holding `text` (cut or passed). */
  seen(text: string): number {
    return this.#seen.filter((head) => head.includes(text)).length;
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
