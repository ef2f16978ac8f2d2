import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalWorkspace } from '../local/local-workspace.js';
import { acquireDirectory, directoryHolders } from './acquire-directory.js';
import { acquireWorkspace } from './acquire-workspace.js';
import { executionSnapshot } from './execution-snapshot.js';
import { directoryLeaseTarget } from './lease-key.js';
import { readLeaseRecords } from './lease-record.js';
import { refusal } from './test-support/refusal.js';
import { useLeaseHolders } from './test-support/use-lease-holders.js';
import { useTempDirs } from './test-support/use-temp-dirs.js';

/** A workspace of another kind on a directory, as a worktree or scratch type would be. */
class ScratchWorkspace extends LocalWorkspace {
  override readonly kind = 'scratch';
}

const tempDir = useTempDirs();
const holder = useLeaseHolders();

async function setup() {
  const workingDir = await tempDir('occupancy-dir-work-');
  const links = await tempDir('occupancy-dir-links-');
  const linked = path.join(links, 'link');
  await symlink(workingDir, linked);
  const leaseDir = path.join(await tempDir('occupancy-dir-leases-'), 'leases');
  return { workingDir, linked, leaseDir };
}

describe('leases on the execution root', () => {
  it('two kinds of workspace on one directory contend for one lease, and history is kept under its key', async () => {
    const { workingDir, leaseDir } = await setup();
    const local = new LocalWorkspace({ workingDir });
    const scratch = new ScratchWorkspace({ workingDir });
    expect((await local.identity()).workspaceId).not.toBe((await scratch.identity()).workspaceId);
    const held = await acquireWorkspace(scratch, {
      holderId: 'scratch-writer',
      mode: 'exclusive_write',
      leaseDir,
    });
    const error = await refusal(
      acquireWorkspace(local, { holderId: 'local-writer', mode: 'exclusive_write', leaseDir }),
    );
    expect(error.code).toBe('WORKSPACE_OCCUPIED');
    expect(error.details).toMatchObject({ holderId: 'scratch-writer', leaseKey: held.leaseKey });
    const snapshot = await executionSnapshot(local, { leaseDir });
    expect(snapshot.occupancy.map((entry) => entry.holderId)).toEqual(['scratch-writer']);
    await held.release();
    await using after = await acquireWorkspace(local, {
      holderId: 'local-writer',
      mode: 'exclusive_write',
      leaseDir,
    });
    expect(after.leaseKey).toBe(held.leaseKey);
    expect(after.directory).toBe(workingDir);
    const records = await readLeaseRecords(leaseDir, held.leaseKey);
    expect(records.map((record) => record.holderId).sort()).toEqual([
      'local-writer',
      'scratch-writer',
    ]);
    expect(
      records.find((record) => record.holderId === 'scratch-writer')?.releasedAt,
    ).toBeDefined();
  });

  it('a child holding a lease through a symlink refuses acquireDirectory on the real path', async () => {
    const { workingDir, linked, leaseDir } = await setup();
    const child = holder({
      workingDir: linked,
      leaseDir,
      mode: 'shared_read',
      holderId: 'child-via-link',
    });
    expect(await child.nextLine()).toMatchObject({ ready: true });
    const error = await refusal(
      acquireDirectory(workingDir, { holderId: 'destroyer', mode: 'exclusive_write', leaseDir }),
    );
    expect(error.code).toBe('WORKSPACE_OCCUPIED');
    expect(error.details).toMatchObject({
      holderId: 'child-via-link',
      pid: child.child.pid,
      directory: workingDir,
    });
    expect(await directoryHolders(linked, { leaseDir })).toMatchObject([
      { holderId: 'child-via-link', pid: child.child.pid, mode: 'shared_read' },
    ]);
    child.child.stdin?.write('release\n');
    expect(await child.nextLine()).toEqual({ released: true });
    expect(await directoryHolders(workingDir, { leaseDir })).toEqual([]);
    await using lease = await acquireDirectory(linked, {
      holderId: 'destroyer',
      mode: 'exclusive_write',
      leaseDir,
    });
    expect(lease.directory).toBe(workingDir);
  });

  it("leaves a workspace's own leases out when asked, and still refuses everyone else", async () => {
    const { workingDir, leaseDir } = await setup();
    const owner = new LocalWorkspace({ workingDir });
    await using own = await acquireWorkspace(owner, {
      holderId: 'owner',
      mode: 'exclusive_write',
      leaseDir,
    });
    await expect(
      refusal(acquireDirectory(workingDir, { holderId: 'd', mode: 'exclusive_write', leaseDir })),
    ).resolves.toMatchObject({ code: 'WORKSPACE_OCCUPIED', details: { holderId: 'owner' } });
    expect(await directoryHolders(workingDir, { leaseDir, exceptHeldBy: owner })).toEqual([]);
    const destroyer = await acquireDirectory(workingDir, {
      holderId: 'destroyer',
      mode: 'exclusive_write',
      leaseDir,
      exceptHeldBy: owner,
    });
    await own.release();
    // The owner's lock is gone; the destroyer's own socket still keeps others out.
    const other = new LocalWorkspace({ workingDir });
    await expect(
      refusal(acquireWorkspace(other, { holderId: 'late', mode: 'shared_read', leaseDir })),
    ).resolves.toMatchObject({ details: { holderId: 'destroyer' } });
    await destroyer.release();
  });

  it('keys a directory that does not exist yet by its resolved path', async () => {
    const { workingDir } = await setup();
    const missing = path.join(workingDir, 'later');
    const before = await directoryLeaseTarget(missing);
    await mkdir(missing);
    expect(await directoryLeaseTarget(missing)).toEqual(before);
    expect(before.directory).toBe(missing);
  });
});
