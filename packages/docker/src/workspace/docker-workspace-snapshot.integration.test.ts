/**
 * Snapshots and forks on a real engine: a workspace with files, a git commit and a process is
 * snapshotted and forked twice; the forks see the files and the history, not the process nor
 * the environment's secrets, and are independent of each other. Listing, removal (refused for
 * foreign images, reported while in use) and `fromSnapshot` errors.
 */
import { randomBytes } from 'node:crypto';
import { WorkspaceError } from '@agent-workspace/core';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterAll, expect, it, vi } from 'vitest';
import { DOCKER_LABELS, DOCKER_SNAPSHOT_LABELS } from './docker-labels.js';
import type { DockerSnapshot } from './docker-snapshot.js';
import { DockerWorkspace } from './docker-workspace.js';
import type { DockerWorkspaceOptions } from './docker-workspace-options.js';
import { listDockerSnapshots } from './list-docker-snapshots.js';
import { removeDockerSnapshot } from './remove-docker-snapshot.js';
import { dockerTestContext, TEST_RUN_LABEL } from './test-support/docker-test-context.js';

const context = dockerTestContext();
const workspaces: DockerWorkspace[] = [];
const userSecret = `user-secret-${randomBytes(8).toString('hex')}`;
const forwardedSecret = `forwarded-secret-${randomBytes(8).toString('hex')}`;
const FORWARDED = 'AW_SNAPSHOT_TEST_FORWARDED';

afterAll(async () => {
  delete process.env[FORWARDED];
  await Promise.allSettled(workspaces.map((workspace) => workspace.close()));
  await context.removeAll();
  if (context.skipReason) return;
  // Snapshots keep the user's labels of their container: this file's run label finds them all.
  const images = await context.docker.listImages({
    filters: { label: [`${TEST_RUN_LABEL}=${context.labels[TEST_RUN_LABEL]}`] },
  });
  await Promise.all(
    images.map((image) => context.docker.getImage(image.Id).remove({ force: true })),
  );
});

function options(extra: Partial<DockerWorkspaceOptions> = {}): DockerWorkspaceOptions {
  return { ...extra, labels: { ...context.labels, ...extra.labels } };
}

function track<T extends DockerWorkspace>(workspace: T): T {
  workspaces.push(workspace);
  return workspace;
}

/** Runs `command` in `workspace`, expecting exit code 0; returns its stdout. */
async function run(workspace: DockerWorkspace, command: string): Promise<string> {
  const result = await workspace.executeCommand(command);
  expect(result.exitCode, `${command}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** The image's `Config.Env`. */
async function imageEnv(snapshot: DockerSnapshot): Promise<string[]> {
  return (await context.docker.getImage(snapshot.id).inspect()).Config.Env ?? [];
}

const SEES_ORIGINAL = [
  'cat repo/a.txt repo/untracked.txt /tmp/outside.txt',
  'git -C repo log --format=%s',
  'git -C repo status --porcelain',
].join(' && ');
const ORIGINAL_VIEW =
  'hello\nnot committed\noutside the working dir\nfirst commit\n?? untracked.txt\n';

context.describe('DockerWorkspace snapshots and forks', () => {
  it('forks twice: both forks see the files and git history, not the process, and are independent', async () => {
    process.env[FORWARDED] = forwardedSecret;
    const original = track(
      await DockerWorkspace.create(
        options({
          image: context.image,
          env: { USER_SECRET: userSecret },
          forwardEnv: [FORWARDED],
        }),
      ),
    );
    await run(
      original,
      [
        'mkdir repo && cd repo && git init -q && echo hello > a.txt && git add a.txt',
        'git -c user.name=Tester -c user.email=tester@example.test commit -qm "first commit"',
        'echo "not committed" > untracked.txt',
        'echo "outside the working dir" > /tmp/outside.txt',
        // A process that outlives its command, to show a fork does not carry it.
        '(setsid sleep 313 >/dev/null 2>&1 &)',
      ].join(' && '),
    );
    // The command lines of every process, one a line; `31[3]` keeps the search from finding itself.
    const sleepers =
      "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f 2>/dev/null; echo; done | grep -c '^sleep 31[3] ' || true";
    // Started in the background: it may take a moment to become `sleep`.
    await vi.waitFor(async () => expect(Number(await run(original, sleepers))).toBeGreaterThan(0), {
      timeout: 10_000,
      interval: 100,
    });
    const originalKey = (await original.agentServerEndpoint()).apiKey;

    const snapshot = await original.snapshot({ name: 'prepared state' });
    expect(snapshot).toMatchObject({
      name: 'prepared state',
      sourceWorkspaceId: original.workspaceId,
      sourceImage: context.image,
    });
    expect(snapshot.reference).toMatch(/^agent-workspace\/snapshot:[0-9a-f]{24}$/);
    expect(snapshot.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(snapshot.sizeBytes).toBeGreaterThan(0);
    const listed = (await listDockerSnapshots()).find((entry) => entry.id === snapshot.id);
    expect(listed).toEqual(snapshot);

    // No value of the environment is persisted: neither the session key nor the user's values.
    const env = await imageEnv(snapshot);
    const joined = env.join('\n');
    expect(joined).not.toContain(originalKey);
    expect(joined).not.toContain(userSecret);
    expect(joined).not.toContain(forwardedSecret);
    expect(env.filter((entry) => entry.startsWith('SESSION_API_KEY='))).toEqual([]);
    expect(env).toEqual(expect.arrayContaining(['SESSION_API_KEY', 'USER_SECRET', FORWARDED]));
    // Nor the original's identity: a fork must not inherit its workspace id or owner.
    const labels = (await context.docker.getImage(snapshot.id).inspect()).Config.Labels;
    expect(labels[DOCKER_LABELS.workspaceId]).toBe('');
    expect(labels[DOCKER_LABELS.ownerPid]).toBe('');
    expect(labels[DOCKER_SNAPSHOT_LABELS.snapshot]).toBe('true');

    const first = track(await original.fork());
    const second = track(await original.fork());
    // A workspace without the original's env, from the first snapshot.
    const plain = track(
      await DockerWorkspace.create(options({ fromSnapshot: snapshot.reference })),
    );
    expect(plain.image).toBe(snapshot.reference);
    for (const fork of [first, second, plain]) {
      expect(await run(fork, SEES_ORIGINAL)).toBe(ORIGINAL_VIEW);
      expect(Number(await run(fork, sleepers))).toBe(0);
      expect((await fork.agentServerEndpoint()).apiKey).not.toBe(originalKey);
      expect(fork.containerName).not.toBe(original.containerName);
    }
    expect((await plain.executeCommand('printenv USER_SECRET')).exitCode).toBe(1);
    expect((await plain.executeCommand(`printenv ${FORWARDED}`)).exitCode).toBe(1);
    // A fork runs with the original's options, env included.
    expect(await run(first, 'printenv USER_SECRET')).toBe(`${userSecret}\n`);
    expect(first.forkedFrom?.id).toMatch(/^sha256:/);
    expect(first.forkedFrom?.id).not.toBe(second.forkedFrom?.id);
    expect(first.image).toBe(first.forkedFrom?.reference);

    // Independent: a write and a commit in one fork are absent from the other and the original.
    await run(
      first,
      'cd repo && echo mine > only-first.txt && git add only-first.txt && git -c user.name=T -c user.email=t@example.test commit -qm "in the first fork"',
    );
    expect(await run(first, 'git -C repo log --format=%s')).toBe(
      'in the first fork\nfirst commit\n',
    );
    for (const other of [second, original]) {
      expect((await other.executeCommand('test -e repo/only-first.txt')).exitCode).toBe(1);
      expect(await run(other, 'git -C repo log --format=%s')).toBe('first commit\n');
    }
    await run(second, 'echo theirs > repo/only-second.txt');
    expect((await first.executeCommand('test -e repo/only-second.txt')).exitCode).toBe(1);
  });

  it('removes snapshots: refuses foreign images, reports one in use, then removes it', async () => {
    const original = track(await DockerWorkspace.create(options({ image: context.image })));
    const fork = track(await original.fork());
    const snapshot = fork.forkedFrom!;

    const foreign = await expectRejection(removeDockerSnapshot(context.image), 'INVALID_ARGUMENT');
    expect(foreign.details.field).toBe('idOrReference');
    expect(foreign.message).toContain('not an agent-workspace snapshot');
    await context.docker.getImage(context.image).inspect();

    const inUse = await expectRejection(
      removeDockerSnapshot(snapshot.reference),
      'WORKSPACE_OCCUPIED',
    );
    expect(inUse.message).toContain(fork.containerName);
    expect(inUse.details.containers).toEqual([
      expect.objectContaining({ id: fork.containerId, name: fork.containerName }),
    ]);

    await fork.close();
    await removeDockerSnapshot(snapshot.reference);
    expect((await listDockerSnapshots()).map((entry) => entry.id)).not.toContain(snapshot.id);
    const gone = await context.docker
      .getImage(snapshot.id)
      .inspect()
      .catch((error: { statusCode?: number }) => error.statusCode);
    expect(gone).toBe(404);
    const again = await expectRejection(removeDockerSnapshot(snapshot.id), 'NOT_FOUND');
    expect(again.details.field).toBe('idOrReference');
    await expectRejection(removeDockerSnapshot('Not A Name'), 'INVALID_ARGUMENT');
  });

  it('fromSnapshot must name one of our snapshots; nothing is left behind', async () => {
    const attempt = { 'snapshot-test': randomBytes(4).toString('hex') };
    for (const fromSnapshot of ['agent-workspace/snapshot:missing', context.image]) {
      const error = await expectRejection(
        DockerWorkspace.create(options({ fromSnapshot, labels: attempt })),
        'INVALID_CONFIG',
      );
      expect(error.details.fields).toEqual(['fromSnapshot']);
      expect(error.message).toContain('fromSnapshot');
    }
    expect(await context.containerIds(attempt)).toEqual([]);
    for (const [field, bad] of [
      ['fromSnapshot', { image: context.image, fromSnapshot: context.image }],
      ['fromSnapshot', { fromSnapshot: 'Bad Name' }],
      ['image', {}],
    ] as const) {
      let error: unknown;
      try {
        new DockerWorkspace(options(bad));
      } catch (caught) {
        error = caught;
      }
      expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG'), String(error)).toBe(true);
      expect((error as WorkspaceError).details.fields).toEqual([field]);
    }
  });

  it('snapshot() starts a workspace that was not started; refuses after close', async () => {
    const workspace = track(new DockerWorkspace(options({ image: context.image })));
    expect(workspace.status).toBe('new');
    const snapshot = await workspace.snapshot();
    expect(workspace.status).toBe('ready');
    expect(snapshot.name).toBe(workspace.containerName);
    await expectRejection(workspace.snapshot({ name: '' }), 'INVALID_ARGUMENT');
    const fixed = await expectRejection(
      workspace.fork({ image: context.image }),
      'INVALID_ARGUMENT',
    );
    expect(fixed.details.field).toBe('image');
    await workspace.close();
    await expectRejection(workspace.snapshot(), 'WORKSPACE_CLOSED');
    await expectRejection(workspace.fork(), 'WORKSPACE_CLOSED');
    await removeDockerSnapshot(snapshot.id);
  });
});
