import { randomUUID } from 'node:crypto';
import type * as Zmq from 'zeromq';
import type { KernelConnection } from './connection-file.js';
import type { JupyterCodec, JupyterMessage } from './jupyter-codec.js';

/** The `zeromq` module, imported by whoever opens channels (lazily: it is a native addon). */
export type ZeroMqModule = typeof Zmq;

/** A channel messages come from. */
export type ReceivingChannel = 'shell' | 'control' | 'iopub';

/** Options of {@link KernelChannels}. */
export interface KernelChannelsOptions {
  zmq: ZeroMqModule;
  connection: KernelConnection;
  codec: JupyterCodec;
  /** Each message from the kernel whose signature holds. */
  onMessage: (channel: ReceivingChannel, message: JupyterMessage) => void;
  /** Each message dropped because it failed to decode or verify. */
  onInvalid: (channel: ReceivingChannel, error: unknown) => void;
}

/** Longest a send may wait for room in a socket's queue, in milliseconds. */
const SEND_TIMEOUT_MS = 5000;

/**
 * The client end of one kernel's ZeroMQ sockets: DEALERs on shell and control, a SUB on iopub
 * (everything), a DEALER on the heartbeat echo. Messages are decoded and verified with the
 * codec; sends on each socket go one at a time, as zeromq.js requires.
 */
export class KernelChannels {
  readonly #options: KernelChannelsOptions;
  readonly #shell: Zmq.Dealer;
  readonly #control: Zmq.Dealer;
  readonly #iopub: Zmq.Subscriber;
  readonly #heartbeat: Zmq.Dealer;
  readonly #sending = new Map<Zmq.Dealer, Promise<void>>();
  readonly #pings = new Map<string, (answered: boolean) => void>();
  #closed = false;

  /** Connects every socket (ZeroMQ reconnects by itself until the kernel has bound them). */
  constructor(options: KernelChannelsOptions) {
    this.#options = options;
    const { zmq, connection } = options;
    const socketOptions = { linger: 0, sendTimeout: SEND_TIMEOUT_MS };
    this.#shell = new zmq.Dealer(socketOptions);
    this.#control = new zmq.Dealer(socketOptions);
    this.#heartbeat = new zmq.Dealer(socketOptions);
    this.#iopub = new zmq.Subscriber({ linger: 0 });
    this.#iopub.subscribe();
    this.#shell.connect(connection.endpoints.shell);
    this.#control.connect(connection.endpoints.control);
    this.#heartbeat.connect(connection.endpoints.hb);
    this.#iopub.connect(connection.endpoints.iopub);
    void this.#receive('shell', this.#shell);
    void this.#receive('control', this.#control);
    void this.#receive('iopub', this.#iopub);
    void this.#receiveEchoes();
  }

  /** Sends `message` on shell or control. */
  async send(channel: 'shell' | 'control', message: JupyterMessage): Promise<void> {
    const socket = channel === 'shell' ? this.#shell : this.#control;
    await this.#send(socket, this.#options.codec.encode(message));
  }

  /** True when the kernel's heartbeat echoes a ping within `timeoutMs`. */
  ping(timeoutMs: number): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    const token = randomUUID();
    return new Promise((resolve) => {
      const timer = setTimeout(() => answer(false), timeoutMs);
      const answer = (answered: boolean) => {
        clearTimeout(timer);
        this.#pings.delete(token);
        resolve(answered);
      };
      this.#pings.set(token, answer);
      this.#send(this.#heartbeat, [Buffer.from(token)]).catch(() => answer(false));
    });
  }

  /** Closes every socket at once (linger 0). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const answer of [...this.#pings.values()]) answer(false);
    for (const socket of [this.#shell, this.#control, this.#iopub, this.#heartbeat]) {
      socket.close();
    }
  }

  #send(socket: Zmq.Dealer, frames: Buffer[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the kernel channels are closed'));
    const previous = this.#sending.get(socket) ?? Promise.resolve();
    const sent = previous.catch(() => {}).then(() => socket.send(frames));
    this.#sending.set(socket, sent);
    return sent;
  }

  async #receive(channel: ReceivingChannel, socket: Zmq.Dealer | Zmq.Subscriber): Promise<void> {
    try {
      for await (const frames of socket) {
        let message: JupyterMessage;
        try {
          message = this.#options.codec.decode(frames);
        } catch (error) {
          this.#options.onInvalid(channel, error);
          continue;
        }
        this.#options.onMessage(channel, message);
      }
    } catch (error) {
      if (!this.#closed) this.#options.onInvalid(channel, error);
    }
  }

  async #receiveEchoes(): Promise<void> {
    try {
      for await (const [token] of this.#heartbeat) {
        this.#pings.get(token?.toString() ?? '')?.(true);
      }
    } catch {
      // Closed; pending pings were answered by close().
    }
  }
}
