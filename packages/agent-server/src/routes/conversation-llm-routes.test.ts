import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import { OpenAICompatibleDouble } from '@agent-workspace/sdk/testing';
import { describe, expect, it, vi } from 'vitest';
import { jsonApi as api, useTestServer } from '../conversations/test-support/conversation-api.js';
import { TestSocketClient } from '../test-support/test-socket-client.js';

const R = AGENT_SERVER_ROUTES;

const scripted = (fields: Record<string, unknown>) => ({ kind: 'ScriptedLLM', ...fields });

describe('conversation model-control routes', () => {
  const t = useTestServer();

  async function start(llm: Record<string, unknown>): Promise<string> {
    const created = await api(t.url, 'POST', R.conversations, {
      workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
      agent: { kind: 'Agent', llm, tools: [{ name: 'TerminalTool' }] },
    });
    expect(created.status).toBe(201);
    return created.json.id as string;
  }

  async function runToEnd(id: string, text: string): Promise<void> {
    const sent = await api(t.url, 'POST', conversationPath(R.conversationEvents, id), {
      role: 'user',
      content: [{ type: 'text', text }],
      run: true,
    });
    expect(sent.status).toBe(200);
    await vi.waitFor(
      async () => {
        const { json } = await api(t.url, 'GET', conversationPath(R.conversation, id));
        expect(json.execution_status).toBe('finished');
      },
      { timeout: 10_000, interval: 50 },
    );
  }

  it('answers ask_agent from the history, records no event, and counts the usage', async () => {
    const id = await start(
      scripted({
        usage_id: 'agent',
        question_answer: 'I listed the files.',
        script: [{ text: 'Done.', usage: { prompt_tokens: 40, completion_tokens: 4 } }],
      }),
    );
    await runToEnd(id, 'Go');
    const count = (await api(t.url, 'GET', conversationPath(R.countConversationEvents, id))).json;
    const asked = await api(t.url, 'POST', conversationPath(R.askAgent, id), {
      question: 'What did you do?',
    });
    expect(asked).toEqual({ status: 200, json: { response: 'I listed the files.' } });
    expect((await api(t.url, 'GET', conversationPath(R.countConversationEvents, id))).json).toBe(
      count,
    );
    const info = (await api(t.url, 'GET', conversationPath(R.conversation, id))).json;
    expect(info.stats.usage_to_metrics.agent).toMatchObject({
      model_name: 'scripted',
      accumulated_token_usage: { prompt_tokens: 40, completion_tokens: 4 },
    });
    expect(info.stats.usage_to_metrics['ask-agent-llm'].token_usages).toHaveLength(1);
  });

  it('refuses a bad question with 422, an unknown conversation with 404, no answer with 500', async () => {
    const id = await start(scripted({ script: [], question_answer: '' }));
    const path = conversationPath(R.askAgent, id);
    for (const body of [{}, { question: '' }, { question: 'x'.repeat(20_001) }, { question: 1 }]) {
      const refused = await api(t.url, 'POST', path, body);
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.json)).toContain('question');
    }
    const blank = await api(t.url, 'POST', path, { question: '   ' });
    expect(blank.status).toBe(422);
    const unknown = await api(t.url, 'POST', conversationPath(R.askAgent, crypto.randomUUID()), {
      question: 'Hello?',
    });
    expect(unknown.status).toBe(404);
    const none = await api(t.url, 'POST', path, { question: 'Hello?' });
    expect(none.status).toBe(500);
    expect(none.json.detail).toMatch(/no answer/);
  });

  it('cancels the model call of an ask_agent whose client went away', async () => {
    await using double = await OpenAICompatibleDouble.start();
    double.reply({ kind: 'hang' });
    const id = await start(scripted({ script: [] }));
    const switched = await api(t.url, 'POST', conversationPath(R.switchLlm, id), {
      llm: { model: 'openai/slow', base_url: double.baseUrl, api_key: 'sk-x', num_retries: 0 },
    });
    expect(switched.status).toBe(200);
    const asked = fetch(`${t.url}${conversationPath(R.askAgent, id)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Still there?' }),
      signal: AbortSignal.timeout(500),
    });
    await expect(asked).rejects.toThrow();
    // The server gave up its call to the model (the LLM's own timeout is 300 s).
    await vi.waitFor(() => expect(double.chatRequests[0]?.clientClosed).toBe(true), {
      timeout: 5_000,
      interval: 50,
    });
  });

  it('switches the model for the next call, keeps per-model stats and shows the new agent', async () => {
    const id = await start(
      scripted({ usage_id: 'first', script: [{ text: 'from the first model' }] }),
    );
    await runToEnd(id, 'One');
    const switched = await api(t.url, 'POST', conversationPath(R.switchLlm, id), {
      llm: scripted({
        usage_id: 'second',
        script: [{ text: 'unused' }, { text: 'from the second model' }],
      }),
    });
    expect(switched).toEqual({ status: 200, json: { success: true } });
    await runToEnd(id, 'Two');
    const final = await api(t.url, 'GET', conversationPath(R.agentFinalResponse, id));
    expect(final.json.response).toBe('from the second model');
    const info = (await api(t.url, 'GET', conversationPath(R.conversation, id))).json;
    expect(info.agent.llm.usage_id).toBe('second');
    expect(Object.keys(info.stats.usage_to_metrics)).toEqual(['first', 'second']);
    expect(info.stats.usage_to_metrics.second.token_usages).toHaveLength(1);
    // Lists of conversations carry the totals without the per-call records.
    const page = (await api(t.url, 'GET', `${R.searchConversations}?limit=100`)).json;
    const listed = page.items.find((item: { id: string }) => item.id === id);
    expect(listed.stats.usage_to_metrics.second).toMatchObject({
      token_usages: [],
      accumulated_token_usage: { model: 'scripted' },
    });
  });

  it('refuses a bad llm with 422 naming the field, and an unknown conversation with 404', async () => {
    const id = await start(scripted({ script: [] }));
    const path = conversationPath(R.switchLlm, id);
    const cases: [unknown, string][] = [
      [{}, 'llm'],
      [{ llm: { model: '' } }, 'model'],
      [{ llm: { model: 'openai/x', temperature: 9 } }, 'temperature'],
      [{ llm: { kind: 'ScriptedLLM', script: 'nope' } }, 'script'],
      [{ llm: 'openai/gpt-4o' }, 'llm'],
    ];
    for (const [body, field] of cases) {
      const refused = await api(t.url, 'POST', path, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(refused.json)).toContain(field);
    }
    const secret = await api(t.url, 'POST', path, {
      llm: { model: 'openai/x', api_key: 'sk-never-echoed', temperature: 9 },
    });
    expect(JSON.stringify(secret.json)).not.toContain('sk-never-echoed');
    const unknown = await api(t.url, 'POST', conversationPath(R.switchLlm, crypto.randomUUID()), {
      llm: { model: 'openai/gpt-4o', api_key: 'sk-x' },
    });
    expect(unknown.status).toBe(404);
  });

  it('sends streamed deltas and stats updates over the events socket, never into the history', async () => {
    const id = await start(
      scripted({
        stream: true,
        stream_chunk_chars: 3,
        usage_id: 'agent',
        script: [
          { reasoning: 'hmm', text: 'Streaming over the socket.', usage: { prompt_tokens: 9 } },
        ],
      }),
    );
    const client = await TestSocketClient.open(
      `${t.url.replace('http', 'ws')}${conversationPath(R.conversationEventsSocket, id)}`,
    );
    await client.next((frame) => frame.key === 'full_state');
    await api(t.url, 'POST', conversationPath(R.conversationEvents, id), {
      role: 'user',
      content: [{ type: 'text', text: 'Go' }],
      run: true,
    });
    const first = await client.next((frame) => frame.kind === 'StreamingDeltaEvent');
    expect(first).toMatchObject({ source: 'agent', reasoning_content: 'hmm', content: null });
    const stats = await client.next((frame) => frame.key === 'stats');
    expect(stats).toMatchObject({
      value: { usage_to_metrics: { agent: { accumulated_token_usage: { prompt_tokens: 9 } } } },
    });
    await client.next((frame) => frame.key === 'execution_status' && frame.value === 'finished');
    const text = client.frames
      .filter((frame) => (frame as { kind?: string }).kind === 'StreamingDeltaEvent')
      .map((frame) => (frame as { content?: string | null }).content ?? '')
      .join('');
    expect(text).toBe('Streaming over the socket.');
    await client.close();
    const search = await api(t.url, 'GET', conversationPath(R.searchConversationEvents, id));
    const kinds = (search.json.items as { kind: string }[]).map((event) => event.kind);
    expect(kinds).not.toContain('StreamingDeltaEvent');
    expect(kinds).toContain('MessageEvent');
  });
});
