import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the double answers one `POST /v1/chat/completions` with. */
export type OpenAIDoubleReply =
  /** An OpenAI error envelope with this status. */
  | { status: number; message: string }
  /** A completion with text and tool calls (`arguments` verbatim). */
  | { text?: string; toolCalls?: Array<{ name: string; arguments: string }> };

/**
 * A test double of an OpenAI-compatible chat-completions API: a real HTTP server on 127.0.0.1
 * (or `listenHost`, e.g. `0.0.0.0` to be reachable from a container; port 0) answering each `POST /v1/chat/completions` with the next scripted reply (the last
 * one again once the script is used up). Use it as `await using`.
 */
export class OpenAIDouble implements AsyncDisposable {
  /** Base URL to give the demo, e.g. `http://127.0.0.1:43210/v1`. */
  readonly baseUrl: string;
  /** Number of chat-completions requests received. */
  requests = 0;
  readonly #server: Server;

  private constructor(server: Server) {
    this.#server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  /** Starts a double that answers with `replies`, in order; `baseUrl` is on 127.0.0.1. */
  static async start(
    replies: readonly OpenAIDoubleReply[],
    { listenHost = '127.0.0.1' }: { listenHost?: string } = {},
  ): Promise<OpenAIDouble> {
    const server = createServer();
    server.listen(0, listenHost);
    await once(server, 'listening');
    const double = new OpenAIDouble(server);
    server.on('request', (request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
          response.writeHead(404).end();
          return;
        }
        const reply = replies[Math.min(double.requests, replies.length - 1)];
        double.requests += 1;
        const [status, body] =
          reply && 'status' in reply ? errorBody(reply) : [200, completion(reply)];
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      });
    });
    return double;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    const closed = once(this.#server, 'close');
    this.#server.close();
    this.#server.closeAllConnections();
    await closed;
  }
}

function errorBody(reply: { status: number; message: string }): [number, unknown] {
  return [reply.status, { error: { message: reply.message, type: 'error', code: null } }];
}

function completion(reply: Exclude<OpenAIDoubleReply, { status: number }> | undefined): unknown {
  const toolCalls = (reply?.toolCalls ?? []).map((call, index) => ({
    id: `call_${index}`,
    type: 'function',
    function: call,
  }));
  return {
    id: 'chatcmpl-double',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'double',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply?.text ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}
