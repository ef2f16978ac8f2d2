import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedAgent, startRequest } from '../src/conversations/test-support/conversation-api.js';
import { Figures } from './support/figures.js';
import { type Answer, call } from './support/http.js';
import { AUTH, type ServerProcess, waitFor } from './support/server-process.js';
import {
  createStateScratch,
  finishScenario,
  type StateScratch,
  startStateServer,
} from './support/state-dir-server.js';

const JSON_HEADERS = { ...AUTH, 'content-type': 'application/json' };

/**
 * Conversation control against the built server: condense, fork, interrupt, title and the
 * agent's condenser, with unknown ids, taken ids, unknown events, sizes past the limits and
 * parallel forks. Every refusal must be the documented 4xx; a 5xx or a wrong success is an escape.
 */
describe('conversation control refusals', () => {
  let scratch: StateScratch;
  let server: ServerProcess;
  let source: string;
  const figures = new Figures('conversation control');

  const send = (method: string, route: string, body?: unknown): Promise<Answer> =>
    call(`${server.url}/api/conversations${route}`, {
      method: method as 'POST',
      headers: body === undefined ? AUTH : JSON_HEADERS,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: 60_000,
    });
  /** Sends each case and counts it: the expected status is a rejection, anything else an escape. */
  async function expectStatuses(cases: [string, string, unknown, number][]): Promise<void> {
    const wrong: string[] = [];
    for (const [method, route, body, status] of cases) {
      const answer = await send(method, route, body);
      figures.tried += 1;
      if (answer.status === status) figures.rejected += 1;
      else {
        figures.escapes += 1;
        wrong.push(`${method} ${route} ${JSON.stringify(body)}: ${answer.status} ${answer.text}`);
      }
    }
    expect(wrong).toEqual([]);
  }

  beforeAll(async () => {
    scratch = await createStateScratch('conversation-control');
    server = await startStateServer(scratch);
    const started = await send(
      'POST',
      '',
      startRequest(scratch.workingDir, scriptedAgent('echo hi')),
    );
    source = (started.json as { id: string }).id;
    await waitFor(async () => {
      const info = await send('GET', `/${source}`);
      return (info.json as { execution_status?: string }).execution_status === 'finished';
    }, 60_000);
  });
  afterAll(async () => {
    await finishScenario(figures, server, scratch);
  });

  it('answers unknown and malformed conversation ids as OpenHands does', async () => {
    const unknown = crypto.randomUUID();
    await expectStatuses([
      ['POST', `/${unknown}/condense`, undefined, 404],
      ['POST', `/${unknown}/fork`, {}, 404],
      ['POST', `/${unknown}/interrupt`, undefined, 400],
      ['POST', '/not-a-uuid/condense', undefined, 422],
      ['POST', '/not-a-uuid/fork', {}, 422],
      ['POST', '/not-a-uuid/interrupt', undefined, 422],
    ]);
    const patch = await send('PATCH', `/${unknown}`, { title: 'x' });
    expect(patch.json).toEqual({ success: false });
  });

  it('refuses a fork onto an existing id, from an unknown event, or with a bad body', async () => {
    await expectStatuses([
      ['POST', `/${source}/fork`, { id: source }, 409],
      ['POST', `/${source}/fork`, { from_event_id: 'no-such-event' }, 404],
      ['POST', `/${source}/fork`, { from_event_id: 'x'.repeat(201) }, 422],
      ['POST', `/${source}/fork`, { title: 'x'.repeat(201) }, 422],
      ['POST', `/${source}/fork`, { title: '' }, 422],
      ['POST', `/${source}/fork`, { tags: { k: 'v'.repeat(257) } }, 422],
      ['POST', `/${source}/fork`, { reset_metrics: 'yes' }, 422],
      ['POST', `/${source}/fork`, [], 422],
    ]);
  });

  it('makes one fork of 20 parallel forks onto one id, the rest 409', async () => {
    const id = crypto.randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => send('POST', `/${source}/fork`, { id })),
    );
    figures.tried += answers.length;
    const created = answers.filter((answer) => answer.status === 201).length;
    const conflicts = answers.filter((answer) => answer.status === 409).length;
    figures.rejected += conflicts;
    figures.escapes += answers.length - created - conflicts + Math.max(0, created - 1);
    expect([created, conflicts]).toEqual([1, 19]);
    expect((await send('GET', `/${id}`)).json).toMatchObject({
      forked_from_conversation_id: source,
    });
  });

  it('refuses titles outside 1..200 characters', async () => {
    await expectStatuses([
      ['PATCH', `/${source}`, { title: 'x'.repeat(201) }, 422],
      ['PATCH', `/${source}`, { title: '' }, 422],
      ['PATCH', `/${source}`, { title: 42 }, 422],
    ]);
    expect((await send('PATCH', `/${source}`, { title: 'y'.repeat(200) })).json).toEqual({
      success: true,
    });
    expect((await send('GET', `/${source}`)).json).toMatchObject({ title: 'y'.repeat(200) });
  });

  it('refuses an unknown condenser kind and out-of-range condenser sizes with 422', async () => {
    const agent = (condenser: unknown) => ({ ...scriptedAgent('true'), condenser });
    await expectStatuses([
      ['POST', '', startRequest(scratch.workingDir, agent({ kind: 'MagicCondenser' })), 422],
      [
        'POST',
        '',
        startRequest(scratch.workingDir, agent({ kind: 'RollingWindowCondenser', max_size: 0 })),
        422,
      ],
      [
        'POST',
        '',
        startRequest(
          scratch.workingDir,
          agent({ kind: 'RollingWindowCondenser', max_size: 10_001 }),
        ),
        422,
      ],
      [
        'POST',
        '',
        startRequest(
          scratch.workingDir,
          agent({ kind: 'LLMSummarizingCondenser', max_size: 10, keep_first: 4 }),
        ),
        422,
      ],
      ['POST', '', startRequest(scratch.workingDir, agent('NoOpCondenser')), 422],
    ]);
  });

  it('refuses condense with no condenser or nothing to condense (409), and interrupt when idle is harmless', async () => {
    const noCondenser = await send('POST', `/${source}/condense`);
    const started = await send('POST', '', {
      workspace: { kind: 'LocalWorkspace', working_dir: scratch.workingDir },
      agent: {
        ...scriptedAgent('true'),
        condenser: { kind: 'RollingWindowCondenser', max_size: 20, keep_first: 1 },
      },
    });
    const empty = (started.json as { id: string }).id;
    const nothing = await send('POST', `/${empty}/condense`);
    figures.tried += 2;
    for (const answer of [noCondenser, nothing]) {
      if (answer.status === 409) figures.rejected += 1;
      else figures.escapes += 1;
    }
    expect([noCondenser.status, nothing.status]).toEqual([409, 409]);
    expect(JSON.stringify(nothing.json)).toMatch(/nothing to condense/);

    const before = await send('GET', `/${source}/events/count`);
    expect((await send('POST', `/${source}/interrupt`)).json).toEqual({ success: true });
    expect((await send('GET', `/${source}`)).json).toMatchObject({ execution_status: 'finished' });
    expect((await send('GET', `/${source}/events/count`)).json).toBe(before.json);
  });
});
