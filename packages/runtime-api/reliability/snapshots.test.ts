import { randomUUID } from 'node:crypto';
import { MAX_RUNTIME_SNAPSHOT_NAME_LENGTH } from '@agent-workspace/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RUNTIME_SNAPSHOT_LABELS } from '../src/backend/runtime-snapshot-labels.js';
import { RUNTIME_LABELS } from '../src/backend/session-labels.js';
import { type Answer, call } from '../src/server/test-support/runtime-api-call.js';
import { pollUntil } from '../src/test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../src/test-support/remote-api-test-context.js';
import { RuntimeApiProcess } from './support/runtime-api-process.js';

/** Allowed by the server, never on the engine: a start with it gets no further than its checks. */
const OTHER_IMAGE = 'agent-workspace/not-pulled:never';
const UNKNOWN_SNAPSHOT = '0123456789abcdef0123456789abcdef';

const context = remoteApiTestContext();

context.describe('runtime-api: bad snapshot requests', () => {
  let server: RuntimeApiProcess;
  let session: Answer;
  let snapshotId = '';

  const api = (path: string, options: Parameters<typeof call>[2] = {}) =>
    call(server.url, path, { apiKey: server.apiKey, ...options });

  beforeAll(async () => {
    server = await RuntimeApiProcess.start({
      image: context.image,
      namespace: context.namespace,
      flags: ['--image', OTHER_IMAGE],
    });
    const sessionId = `snapshots-${randomUUID()}`;
    session = await api('/start', { body: { image: context.image, session_id: sessionId } });
    expect(session.status).toBe(201);
    await pollUntil(
      () => api(`/sessions/${sessionId}`),
      (answer) => answer.json?.pod_status === 'ready',
      { what: `session ${sessionId} to be ready` },
    );
    const taken = await api('/snapshots', { body: { runtime_id: session.json.runtime_id } });
    expect(taken.status).toBe(201);
    snapshotId = taken.json.snapshot_id;
  });

  afterAll(async () => {
    await server?.stop();
    await context.cleanup();
  });

  /** True when `answer` is a 4xx whose `detail` names `field` (a 422's `loc`, or a message). */
  function namesField(answer: Answer, field: string): boolean {
    const detail = answer.json?.detail;
    const named = Array.isArray(detail)
      ? detail.some((issue: { loc: unknown[] }) => issue.loc.includes(field))
      : typeof detail === 'string' && detail.includes(field);
    return answer.status >= 400 && answer.status < 500 && named;
  }

  it('refuses each bad request with a 4xx naming the field, and keeps serving', async () => {
    const runtimeId = session.json.runtime_id;
    const start = (fromSnapshot: unknown, image = context.image) =>
      api('/start', {
        body: { image, session_id: `bad-${randomUUID()}`, from_snapshot: fromSnapshot },
      });
    const cases: [name: string, answer: Promise<Answer>, status: number, field: string][] = [
      ['malformed id', api('/snapshots/not-an-id', { method: 'DELETE' }), 422, 'snapshot_id'],
      [
        'upper-case id',
        api(`/snapshots/${UNKNOWN_SNAPSHOT.toUpperCase()}`, { method: 'DELETE' }),
        422,
        'snapshot_id',
      ],
      ['unknown id', api(`/snapshots/${UNKNOWN_SNAPSHOT}`, { method: 'DELETE' }), 404, 'snapshot'],
      [
        'unknown runtime id',
        api('/snapshots', { body: { runtime_id: 'f'.repeat(32) } }),
        404,
        'runtime',
      ],
      ['no runtime id', api('/snapshots', { body: {} }), 422, 'runtime_id'],
      [
        'name too long',
        api('/snapshots', {
          body: { runtime_id: runtimeId, name: 'x'.repeat(MAX_RUNTIME_SNAPSHOT_NAME_LENGTH + 1) },
        }),
        422,
        'name',
      ],
      ['empty name', api('/snapshots', { body: { runtime_id: runtimeId, name: '' } }), 422, 'name'],
      [
        'control character in the name',
        api('/snapshots', { body: { runtime_id: runtimeId, name: 'a\u0007b' } }),
        422,
        'name',
      ],
      [
        'unknown field',
        api('/snapshots', { body: { runtime_id: runtimeId, env: { A: '1' } } }),
        422,
        'env',
      ],
      ['from_snapshot malformed', start('../x'), 422, 'from_snapshot'],
      ['from_snapshot not a string', start(1), 422, 'from_snapshot'],
      ['from_snapshot unknown', start(UNKNOWN_SNAPSHOT), 400, 'from_snapshot'],
      ['from_snapshot of another image', start(snapshotId, OTHER_IMAGE), 400, 'from_snapshot'],
    ];
    const problems: string[] = [];
    for (const [name, pending, status, field] of cases) {
      const answer = await pending;
      if (answer.status !== status || !namesField(answer, field)) {
        problems.push(
          `${name}: expected ${status} naming ${field}, got ${answer.status} ${answer.text}`,
        );
      }
    }
    expect(problems).toEqual([]);

    // Nothing was started or snapshotted by any of it, and the server serves.
    const containers = await context.docker.listContainers({
      all: true,
      filters: { label: [`${RUNTIME_LABELS.namespace}=${context.namespace}`] },
    });
    expect(containers.map(({ Labels }) => Labels[RUNTIME_LABELS.runtimeId])).toEqual([runtimeId]);
    const images = await context.docker.listImages({
      filters: { label: [`${RUNTIME_SNAPSHOT_LABELS.namespace}=${context.namespace}`] },
    });
    expect(images).toHaveLength(1);
    expect((await api('/snapshots')).json.snapshots).toHaveLength(1);
    expect(server.exit).toBeUndefined();
  });

  it('never logs a key, whatever it was sent', () => {
    expect(server.output).not.toContain(server.apiKey);
    expect(server.output).not.toContain(server.secret);
    expect(server.output).not.toContain(session.json.session_api_key);
  });
});
