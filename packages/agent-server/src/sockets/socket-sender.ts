import type { WebSocket } from '@fastify/websocket';

/** Bytes queued on a socket above which senders stop and wait for it to drain. */
export const SEND_HIGH_WATER_BYTES = 1024 * 1024;

/**
 * Sends frames with backpressure: once the socket's send buffer passes
 * {@link SEND_HIGH_WATER_BYTES}, {@link SocketSender.send} returns false and `onWritable` is
 * called when that frame has been written out. Callers keep their place (they pull from the
 * event store), so a slow client never makes the server buffer more than about the high-water mark.
 */
export class SocketSender {
  readonly #socket: WebSocket;
  readonly #onWritable: () => void;
  #blocked = false;

  constructor(socket: WebSocket, onWritable: () => void) {
    this.#socket = socket;
    this.#onWritable = onWritable;
  }

  /** True while waiting for the socket to drain, or when it is no longer open. */
  get blocked(): boolean {
    return this.#blocked || this.#socket.readyState !== this.#socket.OPEN;
  }

  /**
   * Sends `text` (dropped if the socket is no longer open). Returns false when the caller should
   * stop sending until `onWritable`; frames sent meanwhile are still queued.
   */
  send(text: string): boolean {
    const socket = this.#socket;
    if (socket.readyState !== socket.OPEN) return false;
    if (this.#blocked || socket.bufferedAmount + text.length < SEND_HIGH_WATER_BYTES) {
      socket.send(text);
    } else {
      this.#blocked = true;
      socket.send(text, (error) => {
        this.#blocked = false;
        if (!error) this.#onWritable();
      });
    }
    return !this.#blocked;
  }
}
