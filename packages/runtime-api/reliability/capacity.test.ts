import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RUNTIME_LABELS } from '../src/backend/session-labels.js';
import { type Answer, call } from '../src/server/test-support/runtime-api-call.js';
import { remoteApiTestContext } from '../src/test-support/remote-api-test-context.js';
import { RuntimeApiProcess } from './support/runtime-api-process.js';

const MAX_SESSIONS = 3;
const FLOOD = 30;
const context = remoteApiTestContext();

/** Status counts of a set of answers, e.g. `{ 201: 3, 429: 27 }`. */
function statusCounts(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

context.describe('runtime-api at full capacity', () => {
  let server: RuntimeApiProcess;
  const api = (path: string, body?: unknown) =>
    call(server.url, path, { apiKey: server.apiKey, body, timeoutMs: 120_000 });
  const containers = async () =>
    context.docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.namespace}=${context.namespace}`] },
    });

  beforeAll(async () => {
    server = await RuntimeApiProcess.start({
      image: context.image,
      namespace: context.namespace,
      flags: ['--max-sessions', String(MAX_SESSIONS)],
    });
  });

  afterAll(async () => {
    await server?.stop();
    await context.cleanup();
  });

  it(`${FLOOD} concurrent starts create exactly ${MAX_SESSIONS} sessions; the rest get 429, none 5xx`, async () => {
    const answers = await Promise.all(
      Array.from({ length: FLOOD }, (_, index) =>
        api('/start', { image: context.image, session_id: `flood-${index}-${randomUUID()}` }),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 201: MAX_SESSIONS, 429: FLOOD - MAX_SESSIONS });
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.json.detail).toContain(`at most ${MAX_SESSIONS} sessions`);
    }
    expect(await containers()).toHaveLength(MAX_SESSIONS);
    expect((await api('/sessions')).json.sessions).toHaveLength(MAX_SESSIONS);

    const created = answers.filter((answer) => answer.status === 201);
    const stops = await Promise.all(
      created.map((answer) => api('/stop', { runtime_id: answer.json.runtime_id })),
    );
    expect(statusCounts(stops)).toEqual({ 200: MAX_SESSIONS });
    expect(await containers()).toEqual([]);
    expect(server.exit).toBeUndefined();
  });

  it('concurrent starts of one session id make one session: one 201, the rest 200 with it', async () => {
    const sessionId = `same-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        api('/start', { image: context.image, session_id: sessionId }),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 201: 1, 200: 9 });
    const runtimeIds = new Set(answers.map((answer) => answer.json.runtime_id));
    const keys = new Set(answers.map((answer) => answer.json.session_api_key));
    expect([runtimeIds.size, keys.size]).toEqual([1, 1]);
    expect(await containers()).toHaveLength(1);
    await api('/stop', { runtime_id: [...runtimeIds][0] });
  });

  it('pause, resume and stop racing on one session answer 200, 404 or 409, never 5xx', async () => {
    const started = await api('/start', {
      image: context.image,
      session_id: `race-${randomUUID()}`,
    });
    expect(started.status).toBe(201);
    const body = { runtime_id: started.json.runtime_id };
    const routes = [
      '/pause',
      '/resume',
      '/pause',
      '/resume',
      '/stop',
      '/pause',
      '/resume',
      '/stop',
    ];
    const answers = await Promise.all(
      routes.flatMap((route) => [api(route, body), api(route, body)]),
    );
    const unexpected = answers.filter((answer) => ![200, 404, 409].includes(answer.status));
    expect(unexpected.map((answer) => `${answer.status} ${answer.text}`)).toEqual([]);
    expect((await api('/stop', body)).status).toBe(200);
    expect(await containers()).toEqual([]);
    expect(server.exit).toBeUndefined();
  });

  it('never logged a key', () => {
    expect(server.output).not.toContain(server.apiKey);
    expect(server.output).not.toContain(server.secret);
  });
});
