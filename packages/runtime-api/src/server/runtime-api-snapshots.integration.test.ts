import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { RUNTIME_SNAPSHOT_LABELS } from '../backend/runtime-snapshot-labels.js';
import { SwarmRuntimeBackend } from '../backend/swarm-runtime-backend.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { runtimeApiServerFixture } from '../test-support/runtime-api-server-fixture.js';
import { runInSession } from './test-support/run-in-session.js';

const context = remoteApiTestContext();
/** A second server's namespace on the same engine. */
const neighbour = remoteApiTestContext();
const swarm = remoteApiTestContext();
/** Allowed, but not on the engine: starts with it never get that far. */
const OTHER_IMAGE = 'agent-workspace/not-pulled:never';

context.describe('Runtime API snapshots (Docker backend, real agent-server image)', () => {
  const runtimeApi = runtimeApiServerFixture(context, {
    backend: new DockerRuntimeBackend({ namespace: context.namespace }),
    images: [context.image, OTHER_IMAGE],
  });
  const other = runtimeApiServerFixture(neighbour, {
    backend: new DockerRuntimeBackend({ namespace: neighbour.namespace }),
    maxSnapshots: 1,
  });
  const onSwarm = runtimeApiServerFixture(swarm, {
    backend: new SwarmRuntimeBackend({ namespace: swarm.namespace }),
  });
  const { api, ready } = runtimeApi;
  const start = (sessionId: string, extra: Record<string, unknown> = {}) =>
    api('/start', { body: { image: context.image, session_id: sessionId, ...extra } });
  const remove = (snapshotId: string) => api(`/snapshots/${snapshotId}`, { method: 'DELETE' });

  it('snapshots a session with its files and git history; new sessions start from it; it is listed, kept from other namespaces, and removed', async () => {
    const secret = `secret-${randomUUID()}`;
    const sourceId = `source-${randomUUID()}`;
    const source = await start(sourceId, { environment: { SNAPSHOT_TEST_SECRET: secret } });
    expect(source.status).toBe(201);
    await ready(sourceId);
    const prepared = await runInSession(
      source,
      'echo forked > note.txt && git init -q && git add note.txt && git -c user.name=t -c user.email=t@example.com commit -qm "first commit"',
    );
    expect(prepared.exitCode).toBe(0);

    const taken = await api('/snapshots', {
      body: { runtime_id: source.json.runtime_id, name: 'after first commit' },
    });
    expect(taken.status).toBe(201);
    expect(taken.json).toMatchObject({
      session_id: sourceId,
      image: context.image,
      name: 'after first commit',
    });
    const snapshotId: string = taken.json.snapshot_id;
    expect(snapshotId).toMatch(/^[0-9a-f]{32}$/);
    expect(taken.json.size_bytes).toBeGreaterThan(0);
    expect(Date.parse(taken.json.created_at)).not.toBeNaN();

    // The image holds no value of the session's environment: neither the user's nor the key's hash.
    const [image] = await context.docker.listImages({
      filters: { label: [`${RUNTIME_SNAPSHOT_LABELS.snapshotId}=${snapshotId}`] },
    });
    const { Config } = await context.docker.getImage(image?.Id ?? 'missing').inspect();
    const env = Config.Env ?? [];
    expect(env.join('\n')).not.toContain(secret);
    expect(env).toContain('SNAPSHOT_TEST_SECRET');
    expect(env.filter((entry) => entry.startsWith('SESSION_API_KEY_SHA256='))).toEqual([]);

    // Two sessions start from it, each with the files and the history.
    const forks = await Promise.all(
      ['fork-a', 'fork-b'].map(async (prefix) => {
        const sessionId = `${prefix}-${randomUUID()}`;
        const started = await start(sessionId, { from_snapshot: snapshotId });
        expect(started.status).toBe(201);
        await ready(sessionId);
        const read = await runInSession(started, 'cat note.txt && git log --format=%s');
        expect([read.exitCode, read.stdout]).toEqual([0, 'forked\nfirst commit\n']);
        // It has its own key and no value of the source's environment.
        const secretSeen = await runInSession(
          started,
          'printenv SNAPSHOT_TEST_SECRET || echo unset',
        );
        expect(secretSeen.stdout).toBe('unset\n');
        return { sessionId, started };
      }),
    );
    const [fork] = forks;
    if (!fork) throw new Error('no fork');
    // A fork's writes stay its own.
    expect((await runInSession(fork.started, 'echo changed > note.txt')).exitCode).toBe(0);
    expect((await runInSession((forks[1] ?? fork).started, 'cat note.txt')).stdout).toBe(
      'forked\n',
    );

    // Answered again only from the same snapshot, as with the same image.
    expect((await start(fork.sessionId, { from_snapshot: snapshotId })).status).toBe(200);
    const without = await start(fork.sessionId);
    expect(without.status).toBe(409);
    expect(without.json.detail).toContain(snapshotId);
    expect((await start(sourceId, { from_snapshot: snapshotId })).status).toBe(409);

    const listed = await api('/snapshots');
    expect(listed.status).toBe(200);
    expect(listed.json.snapshots).toEqual([taken.json]);

    // Another namespace neither lists, starts from nor removes it.
    expect((await other.api('/snapshots')).json).toEqual({ snapshots: [] });
    const foreign = await other.api('/start', {
      body: {
        image: context.image,
        session_id: `foreign-${randomUUID()}`,
        from_snapshot: snapshotId,
      },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.json.detail).toMatch(/^from_snapshot: /);
    expect((await other.api(`/snapshots/${snapshotId}`, { method: 'DELETE' })).status).toBe(404);

    // In use by the forks: refused until they stop.
    const inUse = await remove(snapshotId);
    expect(inUse.status).toBe(409);
    expect(inUse.json.detail).toContain(snapshotId);
    await Promise.all(
      forks.map(({ started }) => api('/stop', { body: { runtime_id: started.json.runtime_id } })),
    );
    const removed = await remove(snapshotId);
    expect([removed.status, removed.json]).toEqual([
      200,
      { snapshot_id: snapshotId, status: 'removed' },
    ]);
    expect((await api('/snapshots')).json).toEqual({ snapshots: [] });
    expect((await remove(snapshotId)).status).toBe(404);
    await expect(context.docker.getImage(image?.Id ?? 'missing').inspect()).rejects.toThrow();
    await api('/stop', { body: { runtime_id: source.json.runtime_id } });
  });

  it('snapshots a paused session, which stays paused; a stopped one is 404', async () => {
    const sessionId = `paused-${randomUUID()}`;
    const started = await start(sessionId);
    expect(started.status).toBe(201);
    await ready(sessionId);
    expect((await runInSession(started, 'echo paused > note.txt')).exitCode).toBe(0);
    const body = { runtime_id: started.json.runtime_id };
    expect((await api('/pause', { body })).status).toBe(200);
    const taken = await api('/snapshots', { body });
    expect(taken.status).toBe(201);
    expect(taken.json.name).toBe(sessionId);
    expect((await api(`/sessions/${sessionId}`)).json.status).toBe('paused');

    const fromPaused = `from-paused-${randomUUID()}`;
    const forked = await start(fromPaused, { from_snapshot: taken.json.snapshot_id });
    expect(forked.status).toBe(201);
    await ready(fromPaused);
    expect((await runInSession(forked, 'cat note.txt')).stdout).toBe('paused\n');

    // Mismatched image: 400 naming the field.
    const mismatch = await start(`mismatch-${randomUUID()}`, {
      image: OTHER_IMAGE,
      from_snapshot: taken.json.snapshot_id,
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.detail).toMatch(/^from_snapshot: .*agent-server/);

    await api('/stop', { body: { runtime_id: forked.json.runtime_id } });
    await api('/stop', { body });
    expect((await api('/snapshots', { body })).status).toBe(404);
    expect((await remove(taken.json.snapshot_id)).status).toBe(200);
  });

  it('refuses a snapshot past maxSnapshots with 429, also when two race, until one is removed', async () => {
    const sessionId = `limited-${randomUUID()}`;
    const started = await other.api('/start', {
      body: { image: context.image, session_id: sessionId },
    });
    expect(started.status).toBe(201);
    await other.ready(sessionId);
    const body = { runtime_id: started.json.runtime_id };
    const raced = await Promise.all([
      other.api('/snapshots', { body }),
      other.api('/snapshots', { body }),
    ]);
    expect(raced.map((answer) => answer.status).sort()).toEqual([201, 429]);
    const kept = raced.find((answer) => answer.status === 201)!;
    expect(raced.find((answer) => answer.status === 429)!.json.detail).toMatch(
      /maxSnapshots \(1\)/,
    );
    expect((await other.api('/snapshots')).json.snapshots).toHaveLength(1);
    const removeIt = { method: 'DELETE' } as const;
    expect((await other.api(`/snapshots/${kept.json.snapshot_id}`, removeIt)).status).toBe(200);
    const again = await other.api('/snapshots', { body });
    expect(again.status).toBe(201);
    expect((await other.api(`/snapshots/${again.json.snapshot_id}`, removeIt)).status).toBe(200);
    await other.api('/stop', { body });
  });

  it('answers 501 on the Swarm backend, whose session files a commit would not hold', async () => {
    const listed = await onSwarm.api('/snapshots');
    expect(listed.status).toBe(501);
    expect(listed.json.detail).toContain('swarm');
    const taken = await onSwarm.api('/snapshots', { body: { runtime_id: '0'.repeat(32) } });
    expect(taken.status).toBe(501);
    const started = await onSwarm.api('/start', {
      body: { image: swarm.image, session_id: 'x', from_snapshot: '0'.repeat(32) },
    });
    expect(started.status).toBe(501);
  });
});
