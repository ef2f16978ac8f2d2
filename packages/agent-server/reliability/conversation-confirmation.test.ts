import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedAgent } from '../src/conversations/test-support/conversation-api.js';
import { Figures } from './support/figures.js';
import { type Answer, call } from './support/http.js';
import { AUTH, KEY, type ServerProcess, waitFor } from './support/server-process.js';
import {
  createStateScratch,
  finishScenario,
  type StateScratch,
  startStateServer,
} from './support/state-dir-server.js';

const JSON_HEADERS = { ...AUTH, 'content-type': 'application/json' };
/** `MAX_REJECTION_REASON_CHARS`: the longest rejection reason. */
const MAX_REASON = 4096;

function post(server: ServerProcess, route: string, body: unknown): Promise<Answer> {
  return call(`${server.url}${route}`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    timeoutMs: 60_000,
  });
}

const routes = (id: string) => ({
  policy: `/api/conversations/${id}/confirmation_policy`,
  analyzer: `/api/conversations/${id}/security_analyzer`,
  respond: `/api/conversations/${id}/events/respond_to_confirmation`,
  run: `/api/conversations/${id}/run`,
  info: `/api/conversations/${id}`,
});

async function statusOf(server: ServerProcess, id: string): Promise<string | undefined> {
  const info = await call(`${server.url}${routes(id).info}`, { headers: AUTH });
  return (info.json as { execution_status?: string } | undefined)?.execution_status;
}

async function reaches(server: ServerProcess, id: string, status: string): Promise<boolean> {
  return waitFor(async () => (await statusOf(server, id)) === status, 60_000);
}

/** Starts a conversation of an agent that runs `commands`, with `extra` start fields; its id. */
async function startConversation(
  server: ServerProcess,
  workingDir: string,
  commands: string[],
  extra: Record<string, unknown> = {},
): Promise<string> {
  const created = await post(server, '/api/conversations', {
    workspace: { kind: 'LocalWorkspace', working_dir: workingDir },
    agent: scriptedAgent(...commands),
    initial_message: { role: 'user', content: [{ type: 'text', text: 'go' }], run: true },
    ...extra,
  });
  expect(created.status).toBe(201);
  return (created.json as { id: string }).id;
}

describe('confirmation mode under hostile and careless clients', () => {
  let scratch: StateScratch;
  let server: ServerProcess | undefined;
  let stateDir: string;
  const figures = new Figures('confirmation mode');

  beforeAll(async () => {
    scratch = await createStateScratch('confirmation');
    stateDir = scratch.stateDir;
    server = await startStateServer(scratch);
  });
  afterAll(async () => {
    await finishScenario(figures, server, scratch);
  });

  /** Sends each body; each must be answered `status` with a body naming `mention`. */
  async function refused(
    route: string,
    cases: readonly (readonly [unknown, string])[],
    status: number,
  ): Promise<void> {
    const live = server!;
    for (const [body, mention] of cases) {
      const answer = await post(live, route, body);
      figures.tried++;
      const ok = answer.status === status && answer.text.includes(mention);
      if (ok) figures.rejected++;
      else figures.escapes++;
      expect(
        { status: answer.status, mentions: answer.text.includes(mention) },
        `${route} ${String(JSON.stringify(body)).slice(0, 120)} → ${answer.text.slice(0, 300)}`,
      ).toEqual({ status, mentions: true });
    }
  }

  it('refuses unknown policy kinds, bad thresholds and junk bodies with 422 naming the field', async () => {
    const id = await startConversation(server!, scratch.workingDir, []);
    await reaches(server!, id, 'finished');
    const { policy, analyzer } = routes(id);
    await refused(
      policy,
      [
        [{ policy: { kind: 'SometimesConfirm' } }, 'SometimesConfirm'],
        [{ policy: { kind: 'x'.repeat(10_000) } }, 'kind'],
        [{ policy: { kind: 'ConfirmRisky', threshold: 'UNKNOWN' } }, 'threshold'],
        [{ policy: { kind: 'ConfirmRisky', threshold: 'high' } }, 'threshold'],
        [{ policy: { kind: 'ConfirmRisky', threshold: 3 } }, 'threshold'],
        [{ policy: { kind: 'ConfirmRisky', threshold: null } }, 'threshold'],
        [{ policy: { kind: 'ConfirmRisky', confirm_unknown: 'no' } }, 'confirm_unknown'],
        [{ policy: { kind: 'AlwaysConfirm', treshold: 'LOW' } }, 'treshold'],
        [{ policy: { kind: '__proto__' } }, 'kind'],
        [{ policy: null }, 'policy'],
        [{ policy: [] }, 'policy'],
        [{ policy: 'AlwaysConfirm' }, 'policy'],
        [{}, 'policy'],
        [[], 'body'],
        ['{"policy": {"kind": "AlwaysConfirm"', 'json_invalid'],
      ],
      422,
    );
    await refused(
      analyzer,
      [
        [{ security_analyzer: { kind: 'LLMSecurityAnalyzer' } }, 'not supported'],
        [{ security_analyzer: { kind: 'GraySwanAnalyzer' } }, 'not supported'],
        [{ security_analyzer: { kind: 'EvilAnalyzer' } }, 'unknown security analyzer kind'],
        [
          {
            security_analyzer: {
              kind: 'PatternSecurityAnalyzer',
              high_patterns: [['(a+)+$', 'redos', 'x']],
            },
          },
          'high_patterns',
        ],
        [{ security_analyzer: 'PatternSecurityAnalyzer' }, 'security_analyzer'],
        [{}, 'security_analyzer'],
      ],
      422,
    );
    // A 1 MiB policy body is refused (a 4xx), the server keeps serving.
    const huge = await post(server!, policy, {
      policy: { kind: 'AlwaysConfirm', pad: 'x'.repeat(1024 * 1024) },
    });
    figures.tried++;
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
    figures.rejected++;
    const info = await call(`${server!.url}${routes(id).info}`, { headers: AUTH });
    expect((info.json as { confirmation_policy: unknown }).confirmation_policy).toEqual({
      kind: 'NeverConfirm',
    });
  });

  it('answers 404 for unknown conversations and 422 for malformed ids on every route', async () => {
    const unknown = routes(crypto.randomUUID());
    const malformed = routes('not-a-uuid');
    for (const [route, body] of [
      ['policy', { policy: { kind: 'AlwaysConfirm' } }],
      ['analyzer', { security_analyzer: null }],
      ['respond', { accept: true }],
    ] as const) {
      await refused(unknown[route], [[body, 'Conversation not found']], 404);
      await refused(malformed[route], [[body, 'conversation_id']], 422);
    }
  });

  it('refuses a confirmation with nothing pending (409) and an oversized reason (422)', async () => {
    const id = await startConversation(server!, scratch.workingDir, ['touch never.txt'], {
      confirmation_policy: { kind: 'AlwaysConfirm' },
    });
    await reaches(server!, id, 'waiting_for_confirmation');
    const { respond } = routes(id);
    await refused(
      respond,
      [
        [{ accept: false, reason: 'x'.repeat(MAX_REASON + 1) }, 'reason'],
        [{ accept: 'yes' }, 'accept'],
        [{ accept: 1 }, 'accept'],
        [{ reason: 'no accept' }, 'accept'],
        [{ accept: false, reason: 42 }, 'reason'],
      ],
      422,
    );
    expect(await statusOf(server!, id)).toBe('waiting_for_confirmation');
    const rejected = await post(server!, respond, {
      accept: false,
      reason: 'r'.repeat(MAX_REASON),
    });
    expect(rejected.status).toBe(200);
    await refused(
      respond,
      [
        [{ accept: false }, 'No actions are waiting for confirmation'],
        [{ accept: true }, 'No actions are waiting for confirmation'],
      ],
      409,
    );
    expect(existsSync(path.join(scratch.workingDir, 'never.txt'))).toBe(false);

    const fresh = await startConversation(server!, scratch.workingDir, []);
    await reaches(server!, fresh, 'finished');
    await refused(
      routes(fresh).respond,
      [[{ accept: true }, 'No actions are waiting for confirmation']],
      409,
    );
  });

  it('20 racing answers (accepts and rejects): one wins, the held command runs at most once', async () => {
    const id = await startConversation(server!, scratch.workingDir, ['echo ran >> races.txt'], {
      confirmation_policy: { kind: 'AlwaysConfirm' },
    });
    await reaches(server!, id, 'waiting_for_confirmation');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        post(server!, routes(id).respond, index % 2 ? { accept: true } : { accept: false }),
      ),
    );
    figures.tried += answers.length;
    const won = answers.filter((answer) => answer.status === 200).length;
    const lost = answers.filter((answer) => answer.status === 409).length;
    figures.rejected += lost;
    figures.escapes += answers.length - won - lost + Math.max(0, won - 1);
    expect({ won, lost }).toEqual({ won: 1, lost: 19 });
    await waitFor(
      async () => ['finished', 'idle'].includes((await statusOf(server!, id)) ?? ''),
      60_000,
    );
    const file = path.join(scratch.workingDir, 'races.txt');
    const runs = existsSync(file)
      ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length
      : 0;
    expect(runs).toBeLessThanOrEqual(1);
  });

  it('never runs a held action across kill -9 and restart; runs it once accepted', async () => {
    const id = await startConversation(server!, scratch.workingDir, ['touch after-crash.txt'], {
      confirmation_policy: { kind: 'ConfirmRisky', threshold: 'LOW' },
      security_analyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    await reaches(server!, id, 'waiting_for_confirmation');
    // Killed once the state is on disk (the run persists it before it ends).
    const stateFile = path.join(stateDir, 'conversations', id, 'conversation', 'state.json');
    expect(
      await waitFor(
        () => readFileSync(stateFile, 'utf8').includes('"waiting_for_confirmation"'),
        30_000,
      ),
    ).toBe(true);
    server!.kill('SIGKILL');
    await server!.exited;
    server = await startStateServer(scratch, { key: KEY });
    const info = await call(`${server.url}${routes(id).info}`, { headers: AUTH });
    expect(info.json).toMatchObject({
      execution_status: 'waiting_for_confirmation',
      confirmation_policy: { kind: 'ConfirmRisky', threshold: 'LOW' },
      security_analyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    figures.tried += 3;
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await post(server, routes(id).run, {})).status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const early = existsSync(path.join(scratch.workingDir, 'after-crash.txt'));
    if (early) figures.escapes++;
    else figures.rejected += 3;
    expect(early).toBe(false);
    expect(await statusOf(server, id)).toBe('waiting_for_confirmation');
    expect((await post(server, routes(id).respond, { accept: true })).status).toBe(200);
    expect(await reaches(server, id, 'finished')).toBe(true);
    expect(existsSync(path.join(scratch.workingDir, 'after-crash.txt'))).toBe(true);
    figures.note = 'held actions: kill -9 + restart, 3 bare runs, 20 racing answers';
  });
});
