import WebSocket from 'ws';

/** How a test socket was closed. */
export interface SocketClose {
  code: number;
  reason: string;
}

/** Longest a test waits for one frame before failing with the frames seen so far. */
const WAIT_MS = 10_000;

/**
 * A `ws` client for tests: records every JSON frame, waits for frames matching a predicate
 * (in arrival order) and reports how the socket closed.
 */
export class TestSocketClient {
  readonly socket: WebSocket;
  /** Every frame received, parsed. */
  readonly frames: Record<string, unknown>[] = [];
  /** Resolves when the socket closes. */
  readonly closed: Promise<SocketClose>;
  /** Frames already returned by {@link TestSocketClient.next}. */
  readonly #taken = new Set<number>();
  #waiters = new Set<() => void>();

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Record<string, unknown>);
      for (const wake of this.#waiters) wake();
    });
    this.closed = new Promise((resolve) => {
      socket.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const wake of this.#waiters) wake();
      });
    });
  }

  /**
   * Connects to `url` (an `http://` base URL plus path). Rejects with the HTTP status when the
   * handshake is refused.
   */
  static open(url: string, headers: Record<string, string> = {}): Promise<TestSocketClient> {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers });
    const client = new TestSocketClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_request, response) => {
        reject(new Error(`handshake refused with HTTP ${response.statusCode}`));
        socket.terminate();
      });
      socket.once('error', reject);
    });
  }

  /** Sends `value` as JSON (or a raw string as is). */
  send(value: unknown): void {
    this.socket.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** The frames received so far, shortened for error messages. */
  private describeFrames(): string {
    const text = JSON.stringify(this.frames);
    return text.length > 2000 ? `${text.slice(0, 2000)}... (${this.frames.length} frames)` : text;
  }

  /**
   * The earliest frame not returned before that satisfies `match`, waiting for it if needed.
   * Frames that do not match stay available, so several waits can run at once.
   */
  async next<T = Record<string, unknown>>(
    match: (frame: Record<string, unknown>) => boolean = () => true,
  ): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      for (let index = 0; index < this.frames.length; index++) {
        const frame = this.frames[index] as Record<string, unknown>;
        if (this.#taken.has(index) || !match(frame)) continue;
        this.#taken.add(index);
        return frame as T;
      }
      if (this.socket.readyState >= WebSocket.CLOSING) {
        throw new Error(`socket closed while waiting; frames: ${this.describeFrames()}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`no matching frame; frames: ${this.describeFrames()}`);
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, 100);
        this.#waiters.add(wake);
      });
    }
  }

  /** Closes the socket and waits until it is closed. */
  async close(): Promise<SocketClose> {
    this.socket.close();
    return this.closed;
  }
}
