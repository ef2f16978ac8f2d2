import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol/constants';
import { agentServerBaseUrl } from './agent-server-base-url.js';
import { HttpServerClient } from './http-server-client.js';
import type { HttpServerReply, HttpServerRequest } from './http-server-types.js';
import type { StatusErrorCode } from './http-status-error.js';

/** Options of {@link AgentServerClient}. */
export interface AgentServerClientOptions {
  /** Base URL, `http(s)://host:port`, optionally with a path prefix. */
  host: string;
  /** The session API key, sent in the protocol's `SESSION_API_KEY_HEADER`. */
  apiKey?: string | undefined;
  /** Longest wait for response headers, and for each body chunk, in milliseconds. */
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  /** Cap on pooled keep-alive connections. */
  maxConnections: number;
  /**
   * Codes for statuses the caller's routes use their own way, e.g. `REST_REFUSAL_CODES` for the
   * conversation routes (404 → `NOT_FOUND`); see `httpStatusError`.
   */
  statusCodes?: Readonly<Record<number, StatusErrorCode>> | undefined;
}

/** One HTTP call to the agent-server. */
export type AgentServerRequest = HttpServerRequest;

/** A fully read response of the agent-server. */
export type AgentServerReply = HttpServerReply;

/**
 * HTTP client of one agent-server: an {@link HttpServerClient} with the session key in the
 * protocol's `SESSION_API_KEY_HEADER` and errors naming the agent-server. `host` is parsed by
 * `agentServerBaseUrl` (`INVALID_ARGUMENT` naming `host`).
 */
export class AgentServerClient extends HttpServerClient {
  constructor(options: AgentServerClientOptions) {
    const { origin, basePath } = agentServerBaseUrl(options.host);
    super({
      origin,
      basePath,
      peer: 'the agent-server',
      key: {
        header: SESSION_API_KEY_HEADER,
        value: options.apiKey,
        name: 'session API key',
        option: 'apiKey',
      },
      requestTimeoutMs: options.requestTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      maxConnections: options.maxConnections,
      statusCodes: options.statusCodes,
    });
  }

  /** The websocket URL of `path` (`http` → `ws`, `https` → `wss`; never carrying the key). */
  websocketUrl(path: string): string {
    return `${this.host.replace(/^http/, 'ws')}${path}`;
  }
}
