import type { ServerInfo } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { anySignal } from '../internal/any-signal.js';
import { retryAfterFailure } from '../internal/retry-after-failure.js';
import type { AgentServerClient } from './agent-server-client.js';
import { loadWireSchemas } from './load-wire-schemas.js';

/**
 * A server's `/server_info` and the capabilities it lists: `fetch` asks every time, and the
 * capabilities of the first answer, whoever asked, are kept for `capabilities`, which fetches
 * only while none has come (a failed fetch is retried next time).
 */
export class RemoteServerInfo {
  readonly #client: AgentServerClient;
  /** Cuts every request short (the transport is closing). */
  readonly #closing: AbortSignal;
  #capabilities: ServerInfo['capabilities'] | undefined;
  readonly #fetchCapabilities = retryAfterFailure(() =>
    this.fetch().then((info) => info.capabilities),
  );

  constructor(client: AgentServerClient, closing: AbortSignal) {
    this.#client = client;
    this.#closing = closing;
  }

  /** Fetches `GET /server_info` (never cached). */
  async fetch(signal?: AbortSignal): Promise<ServerInfo> {
    const { serverInfoFromWire } = await loadWireSchemas();
    const info = await this.#client.json(
      {
        method: 'GET',
        path: AGENT_SERVER_ROUTES.serverInfo,
        signal: anySignal([signal, this.#closing]),
      },
      serverInfoFromWire,
    );
    this.#capabilities ??= info.capabilities;
    return info;
  }

  /** The server's capabilities: known from an earlier answer, or fetched now. */
  capabilities(): Promise<ServerInfo['capabilities']> {
    return this.#capabilities === undefined
      ? this.#fetchCapabilities()
      : Promise.resolve(this.#capabilities);
  }
}
