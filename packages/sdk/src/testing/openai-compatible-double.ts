import { once } from 'node:events';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the double answers with, OpenAI-style (`arguments` is sent verbatim). */
export interface DoubleToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What the double answers one chat-completions request with. */
export type DoubleReply =
  /**
   * A well-formed completion. A request with `"stream": true` gets it as server-sent events
   * (`chat.completion.chunk`s): the reasoning, then the text in pieces of `chunkChars`, the tool
   * calls, the finish reason, and the usage when the request asked for it
   * (`stream_options.include_usage`), then `data: [DONE]`.
   */
  | {
      kind: 'completion';
      id?: string;
      text?: string | null;
      toolCalls?: DoubleToolCall[];
      usage?: DoubleUsage;
      /** Reasoning sent as `reasoning_content` (streamed, or in the whole message). */
      reasoning?: string;
      /** Characters per streamed text chunk; default 4. */
      chunkChars?: number;
      /** Pause before each streamed chunk, in ms; default 0. */
      chunkDelayMs?: number;
    }
  /** An OpenAI error envelope `{"error": {message, type, code}}` with `status` and headers. */
  | {
      kind: 'error';
      status: number;
      message?: string;
      code?: string;
      headers?: Record<string, string>;
    }
  /** Any body, verbatim (malformed JSON, a completion without choices, ...). */
  | { kind: 'raw'; status?: number; body: string; headers?: Record<string, string> }
  /** Never answers; the connection stays open until the client gives up or the double closes. */
  | { kind: 'hang' };

/** Token counts of a completion, with OpenHands-relevant details. */
export interface DoubleUsage {
  promptTokens: number;
  completionTokens: number;
  /** Sent as `prompt_tokens_details.cached_tokens`. */
  cachedTokens?: number;
  /** Sent as `completion_tokens_details.reasoning_tokens`. */
  reasoningTokens?: number;
}

/** One request the double received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** True once the client closed the connection before the double finished answering. */
  clientClosed: boolean;
}

/** Options of {@link OpenAICompatibleDouble.start}. */
export interface OpenAICompatibleDoubleOptions {
  /**
   * The key the double accepts. A request without `Authorization: Bearer <apiKey>` gets a 401
   * whose message echoes the key it was sent, as some providers do — so tests can check the
   * client redacts it.
   */
  apiKey?: string;
}

const CHAT_COMPLETIONS = '/v1/chat/completions';

/**
 * A test double of an OpenAI-compatible chat-completions API: a real HTTP server on
 * 127.0.0.1 (port 0) that answers `POST /v1/chat/completions` with scripted replies, in order
 * (streamed as server-sent events when the request asks `"stream": true`), and records every
 * request (the requested `model` is in its body). A request with no reply left gets a 500 that names the problem;
 * any other path gets an OpenAI-style 404. Use it as `await using`, or call `close()`.
 */
export class OpenAICompatibleDouble implements AsyncDisposable {
  /** Base URL to configure a client with, e.g. `http://127.0.0.1:43210/v1`. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #replies: DoubleReply[] = [];
  readonly #apiKey: string | undefined;

  private constructor(server: Server, apiKey: string | undefined) {
    this.#server = server;
    this.#apiKey = apiKey;
    const { port } = server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}/v1`;
  }

  /** Starts a double on a free loopback port. */
  static async start(options: OpenAICompatibleDoubleOptions = {}): Promise<OpenAICompatibleDouble> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const double = new OpenAICompatibleDouble(server, options.apiKey);
    server.on('request', (request, response) => {
      double.#handle(request, response).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
    return double;
  }

  /** Queues replies for the next chat-completions requests. */
  reply(...replies: DoubleReply[]): void {
    this.#replies.push(...replies);
  }

  /** The chat-completions requests received, in order. */
  get chatRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.path === CHAT_COMPLETIONS);
  }

  /** Stops the server, cutting hanging connections. Idempotent. */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = once(this.#server, 'close');
    this.#server.close();
    this.#server.closeAllConnections();
    await closed;
  }

  /** `await using` support: {@link OpenAICompatibleDouble.close}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text: the test will see what was sent.
    }
    const path = new URL(request.url ?? '/', 'http://double').pathname;
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path,
      headers: request.headers,
      body,
      clientClosed: false,
    };
    this.requests.push(recorded);
    response.once('close', () => {
      if (!response.writableFinished) recorded.clientClosed = true;
    });

    if (request.method !== 'POST' || path !== CHAT_COMPLETIONS) {
      sendError(response, 404, `Unknown request URL: ${request.method} ${path}`, 'unknown_url');
      return;
    }
    const authorization = request.headers.authorization;
    if (this.#apiKey !== undefined && authorization !== `Bearer ${this.#apiKey}`) {
      const presented = authorization?.replace(/^Bearer /, '') ?? '';
      sendError(response, 401, `Incorrect API key provided: ${presented}.`, 'invalid_api_key');
      return;
    }
    const reply = this.#replies.shift();
    if (reply === undefined) {
      sendError(response, 500, 'openai-compatible double: no scripted reply left', 'no_reply');
      return;
    }
    switch (reply.kind) {
      case 'completion':
        if ((body as { stream?: unknown }).stream === true) {
          await streamCompletion(response, reply, body);
          return;
        }
        sendJson(response, 200, completionBody(reply, body));
        return;
      case 'error':
        sendError(response, reply.status, reply.message ?? 'error', reply.code, reply.headers);
        return;
      case 'raw':
        response.writeHead(reply.status ?? 200, {
          'content-type': 'application/json',
          ...reply.headers,
        });
        response.end(reply.body);
        return;
      case 'hang':
        // Answer nothing; close() or the client's abort ends the connection.
        return;
    }
  }
}

/** Sends `reply` as OpenAI's streamed chunks; a client that leaves ends it early. */
async function streamCompletion(
  response: ServerResponse,
  reply: Extract<DoubleReply, { kind: 'completion' }>,
  request: unknown,
): Promise<void> {
  const id = reply.id ?? 'chatcmpl-double';
  const model = (request as { model?: unknown }).model ?? 'double';
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const size = Math.max(1, reply.chunkChars ?? 4);
  const pieces = (text: string): string[] => {
    const characters = [...text];
    const result: string[] = [];
    for (let at = 0; at < characters.length; at += size) {
      result.push(characters.slice(at, at + size).join(''));
    }
    return result;
  };
  const toolCalls = reply.toolCalls ?? [];
  const frames: unknown[] = [
    chunk({ role: 'assistant', content: '' }),
    ...pieces(reply.reasoning ?? '').map((piece) => chunk({ reasoning_content: piece })),
    ...pieces(reply.text ?? '').map((piece) => chunk({ content: piece })),
    ...toolCalls.map((call, index) =>
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          },
        ],
      }),
    ),
    chunk({}, toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  ];
  const options = (request as { stream_options?: { include_usage?: unknown } }).stream_options;
  if (options?.include_usage === true) {
    frames.push({ ...chunk({}), choices: [], usage: usageBody(reply.usage) });
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const frame of frames) {
    if (reply.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs));
    if (response.destroyed) return;
    response.write(`data: ${JSON.stringify(frame)}\n\n`);
  }
  response.end('data: [DONE]\n\n');
}

function usageBody(given: DoubleUsage | undefined): Record<string, unknown> {
  const usage = given ?? { promptTokens: 10, completionTokens: 5 };
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cachedTokens } }),
    ...(usage.reasoningTokens === undefined
      ? {}
      : { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } }),
  };
}

function completionBody(
  reply: Extract<DoubleReply, { kind: 'completion' }>,
  request: unknown,
): Record<string, unknown> {
  const toolCalls = reply.toolCalls ?? [];
  return {
    id: reply.id ?? 'chatcmpl-double',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: (request as { model?: unknown }).model ?? 'double',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          ...(reply.reasoning === undefined ? {} : { reasoning_content: reply.reasoning }),
          ...(toolCalls.length > 0
            ? {
                tool_calls: toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: usageBody(reply.usage),
  };
}

function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  code?: string,
  headers?: Record<string, string>,
): void {
  const type = status === 401 ? 'authentication_error' : 'invalid_request_error';
  sendJson(
    response,
    status,
    { error: { message, type, param: null, code: code ?? null } },
    headers,
  );
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
