import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import type { AgentServerOptions } from '../../agent-server-options.js';
import { startTestServer, type TestServer } from '../../testing/start-test-server.js';

/** A JSON answer of the server. */
export interface ApiAnswer {
  status: number;
  /** The raw body. */
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
  json: any;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start a {@link startTestServer} with `options` for
 * the enclosing suite and close it; the returned object gets the server's fields once started.
 */
export function useTestServer(options: AgentServerOptions = {}): TestServer {
  const holder = {} as TestServer;
  beforeAll(async () => {
    Object.assign(holder, await startTestServer(options));
  });
  afterAll(async () => {
    await holder.close?.();
  });
  return holder;
}

/** One JSON request to a test server. */
export async function api(
  base: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? JSON.parse(text) : undefined };
}

/** {@link api} without the raw text, so a whole answer can be compared with `toEqual`. */
export async function jsonApi(
  base: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<Omit<ApiAnswer, 'text'>> {
  const { status, json } = await api(base, method, route, body);
  return { status, json };
}

/** A ScriptedLLM agent's JSON: each command with the terminal, then finish. */
export function scriptedAgent(...commands: string[]): Record<string, unknown> {
  return {
    kind: 'Agent',
    llm: {
      kind: 'ScriptedLLM',
      script: [
        ...commands.map((command) => ({
          tool_calls: [{ name: 'terminal', arguments: { command } }],
        })),
        { tool_calls: [{ name: 'finish', arguments: { message: 'all done' } }] },
      ],
    },
    tools: [{ name: 'TerminalTool' }],
  };
}

/** A start request in `workingDir` whose first message starts the run. */
export function startRequest(
  workingDir: string,
  agent: Record<string, unknown>,
  conversationId?: string,
): Record<string, unknown> {
  return {
    workspace: { kind: 'LocalWorkspace', working_dir: workingDir },
    agent,
    ...(conversationId === undefined ? {} : { conversation_id: conversationId }),
    initial_message: { role: 'user', content: [{ type: 'text', text: 'go' }], run: true },
  };
}

/** Waits until the conversation's status is `status`. */
export async function waitForStatus(base: string, id: string, status: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const { json } = await api(
        base,
        'GET',
        conversationPath(AGENT_SERVER_ROUTES.conversation, id),
      );
      expect(json.execution_status).toBe(status);
    },
    { timeout: 20_000, interval: 50 },
  );
}

/** Every event of a conversation, paging `GET …/events/search` (`limit`, then `query`) to the end. */
export async function allEventPages(
  base: string,
  id: string,
  { limit = 100, query = '' }: { limit?: number; query?: string } = {},
): Promise<{ pages: ApiAnswer[]; events: { id: string; kind: string }[] }> {
  const pages: ApiAnswer[] = [];
  const events: { id: string; kind: string }[] = [];
  let pageId: string | null = null;
  do {
    const cursor: string = pageId === null ? '' : `&page_id=${pageId}`;
    const answer = await api(
      base,
      'GET',
      `${conversationPath(AGENT_SERVER_ROUTES.searchConversationEvents, id)}?limit=${limit}${query}${cursor}`,
    );
    expect(answer.status).toBe(200);
    pages.push(answer);
    events.push(...answer.json.items);
    pageId = answer.json.next_page_id;
  } while (pageId !== null);
  return { pages, events };
}

/**
 * An `events.jsonl` line of an observation whose output is `outputBytes` letters, as the server
 * writes them (for histories too long to make by running commands).
 */
export function observationLine(outputBytes: number, index: number): string {
  const output = 'x'.repeat(outputBytes);
  return JSON.stringify({
    kind: 'ObservationEvent',
    id: crypto.randomUUID(),
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, index)).toISOString().replace('Z', '000Z'),
    source: 'environment',
    observation: {
      kind: 'TerminalObservation',
      content: [{ type: 'text', text: output.slice(0, 30_000) }],
      is_error: false,
      command: 'cat big',
      exit_code: 0,
      output,
    },
    action_id: crypto.randomUUID(),
    tool_name: 'terminal',
    tool_call_id: `call_${index}`,
  });
}
