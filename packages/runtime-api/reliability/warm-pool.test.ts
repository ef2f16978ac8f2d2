import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RUNTIME_LABELS } from '../src/backend/session-labels.js';
import { deriveSandboxKey } from '../src/server/session-key.js';
import { type Answer, call } from '../src/server/test-support/runtime-api-call.js';
import { pollUntil } from '../src/test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../src/test-support/remote-api-test-context.js';
import { CLI_PATH, RuntimeApiProcess } from './support/runtime-api-process.js';

const MAX_SESSIONS = 4;
const POOL = 2;
const FLOOD = 12;
const context = remoteApiTestContext();

/** Status counts of a set of answers, e.g. `{ 201: 4, 429: 8 }`. */
function statusCounts(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

context.describe('runtime-api with a warm pool under load', () => {
  let server: RuntimeApiProcess;
  const api = (path: string, body?: unknown) =>
    call(server.url, path, { apiKey: server.apiKey, body, timeoutMs: 120_000 });
  const pooled = (sessionId: string) => ({
    image: context.image,
    session_id: sessionId,
    working_dir: '/workspace',
    environment: {},
  });
  /** The namespace's containers: `warm` unclaimed ones, `sessions` the rest. */
  const containers = async () => {
    const all = await context.docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.namespace}=${context.namespace}`] },
    });
    const isWarm = (names: string[]) => names.some((name) => name.includes('-warm-'));
    return {
      warm: all.filter(({ Names }) => isWarm(Names)).length,
      sessions: all.filter(({ Names }) => !isWarm(Names)).length,
    };
  };
  const untilFull = () =>
    pollUntil(
      () => api('/pool'),
      (answer) => answer.json?.pools?.[0]?.warm === POOL && answer.json.pools[0].starting === 0,
      { what: `${POOL} warm sandboxes` },
    );

  beforeAll(async () => {
    server = await RuntimeApiProcess.start({
      image: context.image,
      namespace: context.namespace,
      flags: ['--max-sessions', String(MAX_SESSIONS), '--warm-pool', `${context.image}=${POOL}`],
    });
  });

  afterAll(async () => {
    await server?.stop();
    await context.cleanup();
  });

  it('answers /pool only with the key, in its wire shape', async () => {
    const open = await call(server.url, '/pool');
    expect([open.status, open.json]).toEqual([401, { detail: 'Unauthorized' }]);
    const full = await untilFull();
    expect(full.json).toEqual({
      pools: [
        {
          image: context.image,
          target: POOL,
          warm: POOL,
          starting: 0,
          claimed_total: 0,
          failures: 0,
          last_failure: null,
        },
      ],
    });
    expect((await api('/pool', {})).status).toBe(404);
  });

  it(`${FLOOD} concurrent pooled starts: ${MAX_SESSIONS} sessions on distinct sandboxes, the rest 429, the pool bounded`, async () => {
    await untilFull();
    const answers = await Promise.all(
      Array.from({ length: FLOOD }, (_, index) =>
        api('/start', pooled(`flood-${index}-${randomUUID()}`)),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 201: MAX_SESSIONS, 429: FLOOD - MAX_SESSIONS });
    const created = answers.filter((answer) => answer.status === 201);
    expect(new Set(created.map((answer) => answer.json.runtime_id)).size).toBe(MAX_SESSIONS);
    expect(new Set(created.map((answer) => answer.json.url)).size).toBe(MAX_SESSIONS);
    expect((await api('/sessions')).json.sessions).toHaveLength(MAX_SESSIONS);
    const full = await untilFull();
    expect(full.json.pools[0].claimed_total).toBeGreaterThanOrEqual(POOL);
    expect(await containers()).toEqual({ warm: POOL, sessions: MAX_SESSIONS });

    const stops = await Promise.all(
      created.map((answer) => api('/stop', { runtime_id: answer.json.runtime_id })),
    );
    expect(statusCounts(stops)).toEqual({ 200: MAX_SESSIONS });
    expect(await containers()).toEqual({ warm: POOL, sessions: 0 });
  });

  it('concurrent pooled starts of one session id claim one sandbox: one 201, the rest 200 with it', async () => {
    const before = (await untilFull()).json.pools[0].claimed_total;
    const sessionId = `same-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api('/start', pooled(sessionId))),
    );
    expect(statusCounts(answers)).toEqual({ 201: 1, 200: 9 });
    expect(new Set(answers.map((answer) => answer.json.runtime_id)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.json.session_api_key)).size).toBe(1);
    const after = await untilFull();
    expect(after.json.pools[0].claimed_total).toBe(before + 1);
    expect(await containers()).toEqual({ warm: POOL, sessions: 1 });
    await api('/stop', { runtime_id: answers[0]!.json.runtime_id });
  });

  it('SIGTERM removes every warm sandbox, keeps the claimed session, and never logged a key', async () => {
    await untilFull();
    const kept = await api('/start', pooled(`kept-${randomUUID()}`));
    expect(kept.status).toBe(201);
    const exit = await server.stop();
    expect(exit.code).toBe(0);
    expect(await containers()).toEqual({ warm: 0, sessions: 1 });
    expect(server.output).not.toContain(server.apiKey);
    expect(server.output).not.toContain(server.secret);
    expect(server.output).not.toContain(kept.json.session_api_key);
    // Nor the init key the claimed sandbox started with.
    const [container] = await context.docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.runtimeId}=${kept.json.runtime_id}`] },
    });
    const nonce = container?.Labels[RUNTIME_LABELS.keyNonce] ?? '';
    const initKey = deriveSandboxKey(server.secret, kept.json.runtime_id, nonce);
    expect(server.output).not.toContain(initKey);
  });

  it('refuses bad --warm-pool values with exit 2 naming the flag', () => {
    const env = {
      ...process.env,
      RUNTIME_API_KEY: `reliability-${randomUUID()}`,
      RUNTIME_API_SESSION_SECRET: `secret-${randomUUID()}`,
    };
    const image = ['--image', context.image];
    for (const flags of [
      ['--warm-pool', `${context.image}=0`],
      ['--warm-pool', `${context.image}=33`],
      ['--warm-pool', context.image],
      ['--warm-pool', 'not-allowed:1=1'],
      ['--backend', 'swarm', '--warm-pool', `${context.image}=1`],
    ]) {
      const run = spawnSync(process.execPath, [CLI_PATH, ...image, ...flags], {
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status, flags.join(' ')).toBe(2);
      expect(run.stderr).toContain('--warm-pool');
    }
  });
});
