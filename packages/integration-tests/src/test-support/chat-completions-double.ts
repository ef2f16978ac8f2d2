import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call a {@link ChatCompletionsDouble} answers with (`arguments` sent verbatim). */
export interface DoubleCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * A test double of an OpenAI-compatible model provider on loopback: `POST /v1/chat/completions`
 * (not streamed) is answered with the queued tool calls, in order, and every request body is
 * kept. With no answer left it answers a 500 naming the problem. For integration tests that need
 * the server's real LLM client to call a model.
 */
export class ChatCompletionsDouble implements AsyncDisposable {
  /** Base URL for an LLM config, e.g. `http://127.0.0.1:43210/v1`. */
  readonly baseUrl: string;
  /** The JSON bodies of the chat-completions requests, in order. */
  readonly requests: unknown[] = [];
  readonly #server: Server;
  readonly #answers: DoubleCall[][] = [];

  private constructor(server: Server) {
    this.#server = server;
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  /** Starts a double on a free loopback port. */
  static async start(): Promise<ChatCompletionsDouble> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const double = new ChatCompletionsDouble(server);
    server.on('request', async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      double.requests.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      const calls = double.#answers.shift();
      if (calls === undefined) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'the double has no answer left' } }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${double.requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'test-model',
          choices: [
            {
              index: 0,
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              },
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    return double;
  }

  /** Queues the answers of the next requests: each is the tool calls of one completion. */
  answer(...answers: DoubleCall[][]): void {
    this.#answers.push(...answers);
  }

  /** Stops the server. Idempotent. */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    const closed = once(this.#server, 'close');
    this.#server.close();
    this.#server.closeAllConnections();
    await closed;
  }

  /** `await using` support. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
