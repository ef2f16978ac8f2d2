import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol/constants';
import { ApiError } from './api-error.js';

/** Query parameters of a request; `undefined` values are left out, arrays repeat the name. */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

/** Options of one {@link AgentServerClient} request. */
export interface RequestOptions {
  readonly method?: string;
  readonly query?: Query;
  /** Sent as JSON. */
  readonly body?: unknown;
  readonly signal?: AbortSignal;
}

/** Options of {@link AgentServerClient}. */
export interface AgentServerClientOptions {
  /** Sent as the {@link SESSION_API_KEY_HEADER} header and as the sockets' first `auth` frame, never in a URL. */
  readonly sessionKey: string;
  /** The server's base URL; default the page's own directory, so any mount prefix works. */
  readonly baseUrl?: URL;
}

/**
 * The page's client of the agent-server that serves it: JSON and text requests with the session
 * key header, and websockets that authenticate with OpenHands' first-frame `auth` message.
 * Failures throw {@link ApiError} with the server's `detail`.
 */
export class AgentServerClient {
  readonly #key: string;
  readonly #base: URL;

  constructor(options: AgentServerClientOptions) {
    this.#key = options.sessionKey;
    this.#base = options.baseUrl ?? new URL('./', location.href);
  }

  /** The URL of a server route (`/api/...`), relative to the base. */
  url(path: string, query: Query = {}): URL {
    const url = new URL(path.replace(/^\//, ''), this.#base);
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      if (typeof value === 'object') for (const item of value) url.searchParams.append(name, item);
      else url.searchParams.set(name, String(value));
    }
    return url;
  }

  /** A request whose 2xx response is returned as is; anything else throws {@link ApiError}. */
  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { [SESSION_API_KEY_HEADER]: this.#key };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.url(path, options.query), {
        method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
        headers,
        body: options.body === undefined ? null : JSON.stringify(options.body),
        signal: options.signal ?? null,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ApiError(null, `Cannot reach the agent-server (${String(error)}).`);
    }
    if (!response.ok) throw await ApiError.fromResponse(response);
    return response;
  }

  /** A request whose answer is JSON. */
  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.request(path, options);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** A request whose answer is text. */
  async text(path: string, options: RequestOptions = {}): Promise<string> {
    return (await this.request(path, options)).text();
  }

  /**
   * A websocket on a server route; its first frame is `{"type":"auth","session_api_key":…}`
   * (OpenHands), sent before any frame the caller sends.
   */
  socket(path: string, query: Query = {}): WebSocket {
    const url = this.url(path, query);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(url);
    socket.addEventListener(
      'open',
      () => socket.send(JSON.stringify({ type: 'auth', session_api_key: this.#key })),
      { once: true },
    );
    return socket;
  }
}
