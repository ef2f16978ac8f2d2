import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalWorkspace } from '../local/local-workspace.js';
import { acquireWorkspace } from './acquire-workspace.js';
import { executionSnapshot } from './execution-snapshot.js';
import { directoryLeaseTarget } from './lease-key.js';
import { readLeaseRecords } from './lease-record.js';
import { refusal } from './test-support/refusal.js';
import { useLeaseHolders } from './test-support/use-lease-holders.js';
import { useTempDirs } from './test-support/use-temp-dirs.js';

const tempDir = useTempDirs();
const holder = useLeaseHolders();

async function setup() {
  const workingDir = await tempDir('occupancy-process-work-');
  const leaseDir = path.join(await tempDir('occupancy-process-leases-'), 'leases');
  return { workingDir, leaseDir, workspace: new LocalWorkspace({ workingDir }) };
}

describe('acquireWorkspace across processes', () => {
  it('refuses while a child holds exclusive_write; after kill -9 the lease is taken and the record recovered', async () => {
    const { workingDir, leaseDir, workspace } = await setup();
    const child = holder({
      workingDir,
      leaseDir,
      mode: 'exclusive_write',
      holderId: 'child-writer',
    });
    const ready = await child.nextLine();
    expect(ready).toMatchObject({ ready: true, pid: child.child.pid });

    const error = await refusal(
      acquireWorkspace(workspace, { holderId: 'parent', mode: 'exclusive_write', leaseDir }),
    );
    expect(error.code).toBe('WORKSPACE_OCCUPIED');
    expect(error.message).toContain(`"child-writer" (pid ${child.child.pid}`);
    expect(error.details).toMatchObject({ holderId: 'child-writer', pid: child.child.pid });
    await expect(
      refusal(acquireWorkspace(workspace, { holderId: 'parent', mode: 'shared_read', leaseDir })),
    ).resolves.toMatchObject({ code: 'WORKSPACE_OCCUPIED' });

    // A live holder's record is never recovered, however often others look.
    const { leaseKey } = await directoryLeaseTarget(workingDir);
    await executionSnapshot(workspace, { leaseDir });
    const live = await readLeaseRecords(leaseDir, leaseKey);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ leaseId: ready.leaseId, pid: child.child.pid });
    expect(live[0]?.recoveredAt).toBeUndefined();
    expect(live[0]?.releasedAt).toBeUndefined();

    child.child.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');

    await using lease = await acquireWorkspace(workspace, {
      holderId: 'parent',
      mode: 'exclusive_write',
      leaseDir,
    });
    expect(lease.holderId).toBe('parent');
    const records = await readLeaseRecords(leaseDir, leaseKey);
    const dead = records.find((record) => record.leaseId === ready.leaseId);
    expect(dead).toMatchObject({ holderId: 'child-writer', pid: child.child.pid });
    expect(Date.parse(dead?.recoveredAt ?? '')).not.toBeNaN();
    expect(dead?.releasedAt).toBeUndefined();
  });

  it('a child is refused naming the parent, and readers in two processes coexist', async () => {
    const { workingDir, leaseDir, workspace } = await setup();
    const reader = await acquireWorkspace(workspace, {
      holderId: 'parent-reader',
      mode: 'shared_read',
      leaseDir,
    });
    const refusedWriter = holder({ workingDir, leaseDir, mode: 'exclusive_write', holderId: 'w' });
    const refused = await refusedWriter.nextLine();
    expect(refused.error).toBe('WORKSPACE_OCCUPIED');
    expect(String(refused.message)).toContain(`"parent-reader" (pid ${process.pid}`);

    const childReader = holder({
      workingDir,
      leaseDir,
      mode: 'shared_read',
      holderId: 'child-reader',
    });
    expect(await childReader.nextLine()).toMatchObject({ ready: true });
    const snapshot = await executionSnapshot(workspace, { leaseDir });
    expect(snapshot.occupancy.map((entry) => entry.holderId).sort()).toEqual([
      'child-reader',
      'parent-reader',
    ]);
    await reader.release();

    // The child's reader alone still keeps writers out, until it releases.
    const stillRefused = await refusal(
      acquireWorkspace(workspace, { holderId: 'parent', mode: 'exclusive_write', leaseDir }),
    );
    expect(stillRefused.details).toMatchObject({
      holderId: 'child-reader',
      pid: childReader.child.pid,
    });
    childReader.child.stdin?.write('release\n');
    expect(await childReader.nextLine()).toEqual({ released: true });
    await using writer = await acquireWorkspace(workspace, {
      holderId: 'parent',
      mode: 'exclusive_write',
      leaseDir,
    });
    expect(writer.mode).toBe('exclusive_write');
  });
});
