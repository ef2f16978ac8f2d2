import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** The request line of a container start in the Engine API (`POST /v1.47/containers/x/start`). */
const CONTAINER_START = /^POST \/(?:v[\d.]+\/)?containers\/[^/\s]+\/start[?\s]/m;
/** The request line of a container rename (`POST /v1.47/containers/x/rename?name=y`). */
const CONTAINER_RENAME = /^POST \/(?:v[\d.]+\/)?containers\/[^/\s]+\/rename[?\s]/m;

/** The request line of a call that freezes a container: a pause, or a commit with `pause`. */
const CONTAINER_FREEZE =
  /^POST \/(?:v[\d.]+\/)?(?:containers\/[^/\s]+\/pause[?\s]|commit\?(?:[^\s]*&)?pause=(?:1|true)[&\s])/m;
/** The engine's answer when runc gave up freezing a container (cgroup v1, under load). */
const FREEZE_FAILURE = JSON.stringify({
  message: 'Cannot pause container: OCI runtime pause failed: unable to freeze: unknown',
});

/** Options of {@link EngineProxy.start}. */
export interface EngineProxyOptions {
  /** The engine's Unix socket. @default '/var/run/docker.sock' */
  socketPath?: string;
}

/**
 * A real TCP proxy on loopback in front of the Docker engine's socket (a server reaches it as
 * `DOCKER_HOST=tcp://...`) that can hold back the engine's answers to container starts (or
 * renames: a warm pool's claims): the call itself reaches the engine and runs, but the server
 * waits for its answer until {@link release} — long enough for a test to kill the sandbox, or
 * the server, mid-call. It can also answer calls that freeze a container with the failure the
 * engine answers when the kernel could not freeze it in time ({@link failFreezes}): a race no test
 * can cause on demand. Every other call reaches the real engine.
 */
export class EngineProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  /** Flushes of the answers held back, one per held start. */
  readonly #held: (() => void)[] = [];
  /** Wake-ups of {@link untilHeld} callers, called at every held start. */
  readonly #waiters = new Set<() => void>();
  /** The request line whose answers are held back, while holding. */
  #holding: RegExp | undefined;
  /** How many more freezing calls to answer with the engine's freeze failure. */
  #freezesToFail = 0;
  #failedFreezes = 0;

  private constructor(socketPath: string) {
    this.#server = createServer((client) => {
      const engine = createConnection({ path: socketPath });
      let held: Buffer[] | undefined;
      for (const socket of [client, engine]) {
        this.#sockets.add(socket);
        socket.once('close', () => {
          this.#sockets.delete(socket);
          client.destroy();
          engine.destroy();
        });
        socket.on('error', () => {});
      }
      client.on('data', (chunk: Buffer) => {
        if (client.writableEnded) return;
        // One request at a time per connection: the next answer is this start's.
        const line = chunk.toString('latin1');
        if (this.#freezesToFail > 0 && CONTAINER_FREEZE.test(line)) {
          this.#freezesToFail--;
          this.#failedFreezes++;
          // Closed after the answer: what is left of the request never reaches the engine.
          client.end(
            `HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(FREEZE_FAILURE)}\r\nConnection: close\r\n\r\n${FREEZE_FAILURE}`,
          );
          engine.end();
          return;
        }
        if (this.#holding && held === undefined && this.#holding.test(line)) {
          const buffered: Buffer[] = [];
          held = buffered;
          this.#held.push(() => {
            held = undefined;
            for (const part of buffered) client.write(part);
          });
          for (const wake of this.#waiters) wake();
        }
        engine.write(chunk);
      });
      engine.on('data', (chunk: Buffer) => {
        if (held) held.push(chunk);
        else client.write(chunk);
      });
    });
  }

  /** Starts a proxy on a free loopback port. */
  static async start({
    socketPath = '/var/run/docker.sock',
  }: EngineProxyOptions = {}): Promise<EngineProxy> {
    const proxy = new EngineProxy(socketPath);
    proxy.#server.listen(0, '127.0.0.1');
    await once(proxy.#server, 'listening');
    return proxy;
  }

  /** The proxy's port on 127.0.0.1. */
  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** `DOCKER_HOST` of the proxy, e.g. `tcp://127.0.0.1:40123`. */
  get dockerHost(): string {
    return `tcp://127.0.0.1:${this.port}`;
  }

  /** From now on, holds back the engine's answer to every container start. */
  holdStarts(): void {
    this.#holding = CONTAINER_START;
  }

  /** From now on, holds back the engine's answer to every container rename. */
  holdRenames(): void {
    this.#holding = CONTAINER_RENAME;
  }

  /**
   * Answers the next `count` calls that freeze a container (`pause`, `commit` with `pause`) with
   * the engine's failure to freeze, without passing them on.
   */
  failFreezes(count: number): void {
    this.#freezesToFail = count;
  }

  /** How many calls {@link failFreezes} has answered with a failure so far. */
  get failedFreezes(): number {
    return this.#failedFreezes;
  }

  /** Resolves once `count` held calls have been sent on and their answers held back. */
  async untilHeld(count: number): Promise<void> {
    while (this.#held.length < count) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          resolve();
        };
        this.#waiters.add(wake);
      });
    }
  }

  /** Passes every held answer on, and stops holding. */
  release(): void {
    this.#holding = undefined;
    for (const flush of this.#held.splice(0)) flush();
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
