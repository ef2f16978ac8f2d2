import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * Test double of the network between a client and a server: a real TCP proxy on loopback that
 * forwards every byte both ways and records them, so a test can prove what crossed this hop.
 */
export class RecordingTcpProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #sent: Buffer[] = [];
  readonly #received: Buffer[] = [];

  private constructor(targetHost: string, targetPort: number) {
    this.#server = createServer((client) => {
      const upstream = createConnection({ host: targetHost, port: targetPort });
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.once('close', () => this.#sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk: Buffer) => this.#sent.push(Buffer.from(chunk)));
      upstream.on('data', (chunk: Buffer) => this.#received.push(Buffer.from(chunk)));
      client.pipe(upstream);
      upstream.pipe(client);
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

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
