import { MAX_ASK_AGENT_QUESTION_LENGTH } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { filesUnder } from './support/files-under.js';
import { type Answer, call } from './support/http.js';
import { AUTH, type ServerProcess, waitFor } from './support/server-process.js';
import {
  createStateScratch,
  finishScenario,
  type StateScratch,
  startStateServer,
} from './support/state-dir-server.js';

const JSON_HEADERS = { ...AUTH, 'content-type': 'application/json' };
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
/** A model key that must never come back in an answer, a log or a file of the state dir. */
const MODEL_KEY = 'sk-reliability-never-echo-7f3a9c';

function post(server: ServerProcess, route: string, body: unknown): Promise<Answer> {
  return call(`${server.url}${route}`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    timeoutMs: 60_000,
  });
}

function get(server: ServerProcess, route: string): Promise<Answer> {
  return call(`${server.url}${route}`, { headers: AUTH, timeoutMs: 60_000 });
}

/** The `loc` paths of a 422's issues. */
function locsOf(answer: Answer): string[] {
  const detail = (answer.json as { detail?: unknown } | undefined)?.detail;
  return Array.isArray(detail)
    ? detail.map((issue) => ((issue as { loc?: unknown[] }).loc ?? []).join('.'))
    : [];
}

describe('conversation model control under hostile clients', () => {
  let scratch: StateScratch;
  let stateDir: string;
  let server: ServerProcess;
  const figures = new Figures('conversation model control');

  beforeAll(async () => {
    scratch = await createStateScratch('conversation-llm');
    stateDir = scratch.stateDir;
    server = await startStateServer(scratch);
  });

  afterAll(async () => {
    await finishScenario(figures, server, scratch);
  });

  async function start(llm: Record<string, unknown>): Promise<string> {
    const answer = await post(server, '/api/conversations', {
      workspace: { kind: 'LocalWorkspace', working_dir: scratch.workingDir },
      agent: { kind: 'Agent', llm, tools: [{ name: 'TerminalTool' }] },
    });
    expect(answer.status).toBe(201);
    return (answer.json as { id: string }).id;
  }

  async function statusOf(id: string): Promise<string | undefined> {
    return ((await get(server, `/api/conversations/${id}`)).json as { execution_status?: string })
      ?.execution_status;
  }

  /** Counts a hostile request: refused with `status` as the contract says, or an escape. */
  function judge(answer: Answer, status: number, what: string): void {
    figures.tried += 1;
    if (answer.status === status) figures.rejected += 1;
    else figures.escapes += 1;
    expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBe(status);
  }

  it('refuses oversized, empty and malformed questions with 422 naming question', async () => {
    const id = await start({ kind: 'ScriptedLLM', script: [], question_answer: 'fine' });
    const route = `/api/conversations/${id}/ask_agent`;
    const bad: unknown[] = [
      { question: 'q'.repeat(MAX_ASK_AGENT_QUESTION_LENGTH + 1) },
      { question: '€'.repeat(MAX_ASK_AGENT_QUESTION_LENGTH + 1) },
      { question: '' },
      { question: ' \n\t ' },
      { question: null },
      { question: 42 },
      { question: ['a'] },
      { question: { text: 'a' } },
      {},
    ];
    for (const body of bad) {
      const answer = await post(server, route, body);
      judge(answer, 422, `question ${JSON.stringify(body).slice(0, 60)}`);
      expect(locsOf(answer)).toContain('body.question');
    }
    for (const raw of ['', '{', 'null', '[]', '"question"', '{"question": "a"}x']) {
      judge(await post(server, route, raw), 422, `body ${raw}`);
    }
    // A body past the server's JSON limit is refused before it is read whole.
    const huge = await post(server, route, { question: 'x'.repeat(2 * 1024 * 1024) });
    figures.tried += 1;
    expect([413, 422]).toContain(huge.status);
    figures.rejected += 1;
    // The longest allowed question is answered.
    const longest = await post(server, route, {
      question: 'q'.repeat(MAX_ASK_AGENT_QUESTION_LENGTH),
    });
    expect(longest.status).toBe(200);
    expect(longest.json).toEqual({ response: 'fine' });
  });

  it('answers 404 for unknown conversations and 422 for malformed ids on both routes', async () => {
    for (const route of ['ask_agent', 'switch_llm']) {
      const body = route === 'ask_agent' ? { question: 'hi' } : { llm: { model: 'openai/x' } };
      judge(await post(server, `/api/conversations/${UNKNOWN_ID}/${route}`, body), 404, route);
      for (const id of ['not-a-uuid', '%00', 'a'.repeat(100), `${UNKNOWN_ID}x`]) {
        judge(await post(server, `/api/conversations/${id}/${route}`, body), 422, `${route} ${id}`);
      }
    }
  });

  it('refuses bad llm configs with 422 naming the field, never echoing the key', async () => {
    const id = await start({ kind: 'ScriptedLLM', script: [] });
    const route = `/api/conversations/${id}/switch_llm`;
    const cases: [unknown, string][] = [
      [{}, 'body.llm'],
      [{ llm: null }, 'body.llm'],
      [{ llm: 'openai/gpt-4o' }, 'body.llm'],
      [{ llm: [] }, 'body.llm'],
      [{ llm: { api_key: MODEL_KEY } }, 'body.llm.model'],
      [{ llm: { model: '', api_key: MODEL_KEY } }, 'body.llm.model'],
      [{ llm: { model: 'openai/x', api_key: MODEL_KEY, temperature: 3 } }, 'body.llm.temperature'],
      [{ llm: { model: 'openai/x', api_key: MODEL_KEY, timeout: -1 } }, 'body.llm.timeout'],
      [
        { llm: { model: 'openai/x', api_key: MODEL_KEY, num_retries: 1e9 } },
        'body.llm.num_retries',
      ],
      [
        { llm: { model: 'openai/x', api_key: MODEL_KEY, base_url: 'file:///etc' } },
        'body.llm.base_url',
      ],
      [{ llm: { model: 'vllm/x', api_key: MODEL_KEY } }, 'body.llm.model'],
      [{ llm: { model: 'openai/x', input_cost_per_token: -1 } }, 'body.llm.input_cost_per_token'],
      [{ llm: { kind: 'ScriptedLLM', script: [{}] } }, 'body.llm.script'],
      [
        { llm: { kind: 'ScriptedLLM', script: [], stream_delay_ms: 1e9 } },
        'body.llm.stream_delay_ms',
      ],
    ];
    for (const [body, loc] of cases) {
      const answer = await post(server, route, body);
      judge(answer, 422, JSON.stringify(body).slice(0, 80));
      expect(
        locsOf(answer).some((found) => found.startsWith(loc)),
        answer.text,
      ).toBe(true);
      expect(answer.text).not.toContain(MODEL_KEY);
    }
    // The conversation is unchanged: still on its scripted model.
    const info = await get(server, `/api/conversations/${id}`);
    expect((info.json as { agent: { llm: { kind: string } } }).agent.llm.kind).toBe('ScriptedLLM');
  });

  it('switches during a run: the call in flight ends on the old model, the next uses the new, a restart keeps it', async () => {
    const id = await start({
      kind: 'ScriptedLLM',
      usage_id: 'before',
      stream: true,
      stream_chunk_chars: 1,
      stream_delay_ms: 30,
      script: [
        {
          text: 'slow old thought',
          tool_calls: [{ name: 'terminal', arguments: { command: 'true' } }],
        },
        { text: 'old model final' },
      ],
    });
    const sent = await post(server, `/api/conversations/${id}/events`, {
      role: 'user',
      content: [{ type: 'text', text: 'go' }],
      run: true,
    });
    expect(sent.status).toBe(200);
    expect(await waitFor(async () => (await statusOf(id)) === 'running', 10_000)).toBe(true);
    // Many switches and side questions at once while the model streams.
    const storm = await Promise.all([
      ...Array.from({ length: 10 }, (_, index) =>
        post(server, `/api/conversations/${id}/switch_llm`, {
          llm: {
            kind: 'ScriptedLLM',
            usage_id: index === 9 ? 'after' : `middle-${index}`,
            script: [{ text: 'unused' }, { text: `new model ${index} final` }],
            question_answer: `answer ${index}`,
          },
        }),
      ),
      ...Array.from({ length: 10 }, () =>
        post(server, `/api/conversations/${id}/ask_agent`, { question: 'status?' }),
      ),
    ]);
    figures.tried += storm.length;
    const failed = storm.filter((answer) => answer.status !== 200);
    figures.escapes += failed.length;
    expect(failed.map((answer) => `${answer.status} ${answer.text}`)).toEqual([]);
    // The last switch to be applied decides; wait for the run to end.
    expect(await waitFor(async () => (await statusOf(id)) === 'finished', 30_000)).toBe(true);
    await post(server, `/api/conversations/${id}/switch_llm`, {
      llm: {
        kind: 'ScriptedLLM',
        usage_id: 'after',
        script: [{ text: 'unused' }, { text: 'after final' }, { text: 'after restart' }],
      },
    });
    const events = (await get(server, `/api/conversations/${id}/events/search`)).json as {
      items: { kind: string; thought?: { text: string }[]; llm_message?: unknown }[];
    };
    const action = events.items.find((event) => event.kind === 'ActionEvent');
    expect(action?.thought?.[0]?.text).toBe('slow old thought');
    const final = await get(server, `/api/conversations/${id}/agent_final_response`);
    expect((final.json as { response: string }).response).toMatch(/^new model \d final$/);
    expect(events.items.map((event) => event.kind)).not.toContain('StreamingDeltaEvent');

    // A restart reads the switched model and the stats back.
    const before = (await get(server, `/api/conversations/${id}`)).json as {
      stats: { usage_to_metrics: Record<string, unknown> };
    };
    await server.stop();
    server = await startStateServer(scratch);
    const after = (await get(server, `/api/conversations/${id}`)).json as {
      agent: { llm: { usage_id?: string } };
      stats: { usage_to_metrics: Record<string, unknown> };
    };
    expect(after.agent.llm.usage_id).toBe('after');
    expect(after.stats).toEqual(before.stats);
    expect(Object.keys(after.stats.usage_to_metrics)).toContain('before');
    await post(server, `/api/conversations/${id}/events`, {
      role: 'user',
      content: [{ type: 'text', text: 'again' }],
      run: true,
    });
    expect(await waitFor(async () => (await statusOf(id)) === 'finished', 30_000)).toBe(true);
    const resumed = await get(server, `/api/conversations/${id}/agent_final_response`);
    expect((resumed.json as { response: string }).response).toMatch(/after/);
  });

  it('keeps model keys out of answers, logs and the state directory', async () => {
    const id = await start({ kind: 'ScriptedLLM', script: [] });
    const switched = await post(server, `/api/conversations/${id}/switch_llm`, {
      llm: {
        model: 'openai/gpt-4o-mini',
        api_key: MODEL_KEY,
        base_url: 'http://127.0.0.1:9/v1',
        num_retries: 0,
        timeout: 5,
      },
    });
    expect(switched.status).toBe(200);
    const info = await get(server, `/api/conversations/${id}`);
    expect(info.text).not.toContain(MODEL_KEY);
    // The model is unreachable: the side question fails with 500, without the key.
    const asked = await post(server, `/api/conversations/${id}/ask_agent`, { question: 'hi?' });
    figures.tried += 1;
    expect(asked.status).toBe(500);
    figures.rejected += 1;
    expect(asked.text).not.toContain(MODEL_KEY);
    for (const text of filesUnder(stateDir)) expect(text).not.toContain(MODEL_KEY);
    expect(JSON.stringify(server.logs)).not.toContain(MODEL_KEY);
    // Still serving.
    expect((await get(server, '/alive')).status).toBe(200);
  });
});
