/**
 * reapOrphans on a real engine: a container whose owner process was SIGKILLed is removed; one
 * whose owner lives, or that was created with keepAlive, is kept; ttlMs removes by age.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WorkspaceError } from '@agent-workspace/core';
import { afterAll, expect, it } from 'vitest';
import { DOCKER_LABELS } from './docker-labels.js';
import { DockerWorkspace } from './docker-workspace.js';
import { reapOrphans } from './reap-orphans.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await context.removeAll();
});

const owner = fileURLToPath(new URL('./test-support/orphan-owner.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/** Starts a child process that creates a workspace; resolves with it and its container id. */
async function spawnOwner(keepAlive: boolean): Promise<{ child: ChildProcess; id: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', owner, context.image, JSON.stringify(context.labels), String(keepAlive)],
    { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the owner process exited with ${code} before its workspace was ready`);
  });
  const ready = (async () => {
    for await (const line of createInterface({ input: child.stdout! })) {
      return (JSON.parse(line) as { containerId: string }).containerId;
    }
    throw new Error('no output from the owner process');
  })();
  return { child, id: await Promise.race([ready, exited]) };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

context.describe('reapOrphans', () => {
  it('removes containers of dead owners, keeps live owners and keepAlive, and reaps by age', async () => {
    const [orphan, kept] = await Promise.all([spawnOwner(false), spawnOwner(true)]);
    const mine = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
      reapOrphans: false,
    });
    try {
      const orphanInfo = await context.docker.getContainer(orphan.id).inspect();
      expect(orphanInfo.Config.Labels[DOCKER_LABELS.ownerPid]).toBe(String(orphan.child.pid));
      await Promise.all([kill(orphan.child), kill(kept.child)]);
      // The owners are gone but their containers still run.
      expect((await context.docker.getContainer(orphan.id).inspect()).State.Running).toBe(true);

      const reaped = await reapOrphans({ labels: context.labels });
      expect(reaped).toEqual([expect.objectContaining({ id: orphan.id, reason: 'owner-gone' })]);
      const remaining = await context.containerIds();
      expect(remaining).not.toContain(orphan.id);
      expect(remaining).toContain(kept.id);
      expect(remaining).toContain(mine.containerId);

      // By age, even a live owner's container goes (never a keepAlive one).
      const expired = await reapOrphans({ labels: context.labels, ttlMs: 1 });
      expect(expired).toEqual([
        expect.objectContaining({
          id: mine.containerId,
          workspaceId: mine.workspaceId,
          reason: 'expired',
        }),
      ]);
      expect(await context.containerIds()).toEqual([kept.id]);
    } finally {
      // Safe although the container was reaped.
      await mine.close();
    }
  });

  it('rejects a bad ttlMs with INVALID_ARGUMENT', async () => {
    const error = await reapOrphans({ ttlMs: -1 }).catch((caught: unknown) => caught);
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
  });
});
