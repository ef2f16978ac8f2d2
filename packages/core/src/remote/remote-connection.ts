import type { RemoteTransport } from './remote-transport.js';
import type { RemoteTransportOptions } from './remote-workspace-options.js';

/**
 * The transport of a `RemoteWorkspace` and the session key it sends: created on first use
 * (which loads undici, ws and the wire schemas only as they are needed), and replaced when the
 * key changes.
 */
export class RemoteConnection {
  #options: RemoteTransportOptions;
  #transport: Promise<RemoteTransport> | undefined;
  /** Transports of earlier keys, closing once what runs on them ends. */
  readonly #retired = new Set<Promise<RemoteTransport>>();

  constructor(options: RemoteTransportOptions) {
    this.#options = options;
  }

  /** The session key sent now. */
  get apiKey(): string | undefined {
    return this.#options.apiKey;
  }

  /** The transport of the current key, created on first use. */
  transport(): Promise<RemoteTransport> {
    this.#transport ??= import('./remote-transport.js').then(
      ({ RemoteTransport }) => new RemoteTransport(this.#options),
    );
    return this.#transport;
  }

  /**
   * Sends `apiKey` from now on: later operations get a new transport (HTTP pool and exec socket);
   * the previous one closes once the operations running on it end.
   */
  switchKey(apiKey: string): void {
    this.#options = { ...this.#options, apiKey };
    const previous = this.#transport;
    this.#transport = undefined;
    if (!previous) return;
    this.#retired.add(previous);
    void previous
      .then((transport) => transport.retire())
      .catch(() => {})
      .finally(() => this.#retired.delete(previous));
  }

  /** Closes the current transport and any still retiring (ending what runs on them). */
  async close(): Promise<void> {
    const all = [this.#transport, ...this.#retired].filter((each) => each !== undefined);
    await Promise.all(all.map(async (each) => (await each).close()));
  }
}
