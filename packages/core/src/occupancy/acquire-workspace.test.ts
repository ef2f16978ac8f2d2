import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalWorkspace } from '../local/local-workspace.js';
import type { DescribedWorkspaceIdentity } from '../workspace/workspace-identity.js';
import { acquireWorkspace } from './acquire-workspace.js';
import { executionSnapshot } from './execution-snapshot.js';
import { withLeaseGuard } from './lease-guard.js';
import { directoryLeaseTarget } from './lease-key.js';
import { LEASE_HISTORY_MS, type LeaseRecord, readLeaseRecords } from './lease-record.js';
import { bindAbstractSocket, closeAbstractSocket, leaseSocketNames } from './lease-socket.js';
import { refusal } from './test-support/refusal.js';
import { useTempDirs } from './test-support/use-temp-dirs.js';
import type { AcquireWorkspaceOptions } from './workspace-lease.js';

const tempDir = useTempDirs();

/** A fresh working directory and lease directory, and two workspace objects on the directory. */
async function setup() {
  const workingDir = await tempDir('occupancy-work-');
  const leaseDir = path.join(await tempDir('occupancy-leases-'), 'leases');
  const first = new LocalWorkspace({ workingDir });
  const second = new LocalWorkspace({ workingDir });
  return { workingDir, leaseDir, first, second };
}

describe('acquireWorkspace', () => {
  it('lets shared_read leases coexist', async () => {
    const { leaseDir, first, second } = await setup();
    await using a = await acquireWorkspace(first, {
      holderId: 'reader-a',
      mode: 'shared_read',
      leaseDir,
    });
    await using b = await acquireWorkspace(second, {
      holderId: 'reader-b',
      mode: 'shared_read',
      leaseDir,
    });
    expect(a.workspaceId).toBe(b.workspaceId);
    expect(a.leaseId).not.toBe(b.leaseId);
    expect(a).toMatchObject({ holderId: 'reader-a', mode: 'shared_read' });
    expect(Date.parse(a.acquiredAt)).not.toBeNaN();
  });

  it('refuses a second exclusive_write, naming the holder', async () => {
    const { leaseDir, first, second } = await setup();
    const held = await acquireWorkspace(first, {
      holderId: 'writer-a',
      mode: 'exclusive_write',
      leaseDir,
    });
    const error = await refusal(
      acquireWorkspace(second, { holderId: 'writer-b', mode: 'exclusive_write', leaseDir }),
    );
    expect(error.code).toBe('WORKSPACE_OCCUPIED');
    expect(error.message).toContain('"writer-a"');
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.message).toContain(held.acquiredAt);
    expect(error.details).toMatchObject({
      workspaceId: held.workspaceId,
      holderId: 'writer-a',
      pid: process.pid,
      mode: 'exclusive_write',
      since: held.acquiredAt,
    });
    await held.release();
  });

  it('refuses a writer while readers hold, and a reader while a writer holds', async () => {
    const { leaseDir, first, second } = await setup();
    const reader = await acquireWorkspace(first, {
      holderId: 'reader',
      mode: 'shared_read',
      leaseDir,
    });
    const writeRefused = await refusal(
      acquireWorkspace(second, { holderId: 'writer', mode: 'exclusive_write', leaseDir }),
    );
    expect(writeRefused.code).toBe('WORKSPACE_OCCUPIED');
    expect(writeRefused.details).toMatchObject({ holderId: 'reader', mode: 'shared_read' });
    await reader.release();

    const writer = await acquireWorkspace(second, {
      holderId: 'writer',
      mode: 'exclusive_write',
      leaseDir,
    });
    const readRefused = await refusal(
      acquireWorkspace(first, { holderId: 'reader', mode: 'shared_read', leaseDir }),
    );
    expect(readRefused.code).toBe('WORKSPACE_OCCUPIED');
    expect(readRefused.message).toContain('exclusive_write by "writer"');
    await writer.release();
  });

  it('frees on release (idempotent) and keeps the record as history', async () => {
    const { leaseDir, first, second } = await setup();
    const lease = await acquireWorkspace(first, {
      holderId: 'one',
      mode: 'exclusive_write',
      leaseDir,
    });
    await Promise.all([lease.release(), lease.release()]);
    await lease.release();
    const next = await acquireWorkspace(second, {
      holderId: 'two',
      mode: 'exclusive_write',
      leaseDir,
    });
    const records = await readLeaseRecords(leaseDir, lease.leaseKey);
    const mine = records.find((record) => record.leaseId === lease.leaseId);
    expect(mine).toMatchObject({
      holderId: 'one',
      mode: 'exclusive_write',
      pid: process.pid,
      hostname: os.hostname(),
      acquiredAt: lease.acquiredAt,
    });
    expect(Date.parse(mine?.releasedAt ?? '')).not.toBeNaN();
    expect(mine?.recoveredAt).toBeUndefined();
    await next.release();
  });

  it('releases with await using', async () => {
    const { leaseDir, first, second } = await setup();
    {
      await using _lease = await acquireWorkspace(first, {
        holderId: 'scoped',
        mode: 'exclusive_write',
        leaseDir,
      });
      await expect(
        refusal(acquireWorkspace(second, { holderId: 'other', mode: 'shared_read', leaseDir })),
      ).resolves.toMatchObject({ code: 'WORKSPACE_OCCUPIED' });
    }
    await using after = await acquireWorkspace(second, {
      holderId: 'other',
      mode: 'exclusive_write',
      leaseDir,
    });
    expect(after.holderId).toBe('other');
  });

  it('refuses fileUpload through a workspace object held shared_read, and reports the mode', async () => {
    const { workingDir, leaseDir, first, second } = await setup();
    const source = path.join(await tempDir('occupancy-source-'), 'source.txt');
    await writeFile(source, 'hello');
    const lease = await acquireWorkspace(first, {
      holderId: 'reader',
      mode: 'shared_read',
      leaseDir,
    });
    expect((await first.identity()).accessMode).toBe('shared_read');
    const error = await refusal(first.fileUpload(source, 'copy.txt'));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain('"reader"');
    expect(error.details).toMatchObject({ leaseId: lease.leaseId, mode: 'shared_read' });
    // Reading still works, and another object without the lease is not this lease's reader.
    expect((await first.fileDownload(source, path.join(workingDir, 'x'))).success).toBe(true);
    expect((await second.identity()).accessMode).toBe('exclusive_write');
    await lease.release();
    expect((await first.identity()).accessMode).toBe('exclusive_write');
    expect((await first.fileUpload(source, 'copy.txt')).success).toBe(true);
    expect(await readFile(path.join(workingDir, 'copy.txt'), 'utf8')).toBe('hello');
  });

  it('validates its options and honours an aborted signal', async () => {
    const { leaseDir, first } = await setup();
    for (const [options, field] of [
      [{ holderId: '', mode: 'shared_read' }, 'holderId'],
      [{ holderId: 'x'.repeat(300), mode: 'shared_read' }, 'holderId'],
      [{ holderId: 'a', mode: 'write' }, 'mode'],
    ] as const) {
      const error = await refusal(
        acquireWorkspace(first, { ...(options as unknown as AcquireWorkspaceOptions), leaseDir }),
      );
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.details.field).toBe(field);
    }
    const controller = new AbortController();
    controller.abort();
    const aborted = await refusal(
      acquireWorkspace(first, {
        holderId: 'a',
        mode: 'shared_read',
        leaseDir,
        signal: controller.signal,
      }),
    );
    expect(aborted.code).toBe('ABORTED');
  });

  it('waits for a busy guard, bounded, and stops when aborted', async () => {
    const { leaseDir, first } = await setup();
    const { leaseKey } = await directoryLeaseTarget(first.workingDir);
    const guard = (await bindAbstractSocket(leaseSocketNames(leaseKey).guard))!;
    try {
      await expect(
        refusal(withLeaseGuard({ leaseKey, timeoutMs: 100 }, async () => 'never')),
      ).resolves.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
      const aborted = await refusal(
        acquireWorkspace(first, {
          holderId: 'a',
          mode: 'shared_read',
          leaseDir,
          signal: AbortSignal.timeout(100),
        }),
      );
      expect(aborted.code).toBe('ABORTED');
      const waiting = acquireWorkspace(first, { holderId: 'a', mode: 'shared_read', leaseDir });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await closeAbstractSocket(guard);
      await (await waiting).release();
    } finally {
      await closeAbstractSocket(guard);
    }
  });

  it('keeps the lease directory private and prunes history older than a day', async () => {
    const { leaseDir, first } = await setup();
    const { workspaceId } = await first.identity();
    const lease = await acquireWorkspace(first, { holderId: 'a', mode: 'shared_read', leaseDir });
    const { leaseKey } = lease;
    await lease.release();
    expect((await stat(leaseDir)).mode & 0o777).toBe(0o700);
    const old: LeaseRecord = {
      leaseId: 'f'.repeat(32),
      leaseKey,
      workspaceId,
      holderId: 'ancient',
      mode: 'shared_read',
      pid: 1,
      hostname: os.hostname(),
      acquiredAt: new Date(Date.now() - 3 * LEASE_HISTORY_MS).toISOString(),
      releasedAt: new Date(Date.now() - 2 * LEASE_HISTORY_MS).toISOString(),
    };
    const dir = path.join(leaseDir, leaseKey);
    await writeFile(path.join(dir, `${old.leaseId}.json`), JSON.stringify(old));
    await (
      await acquireWorkspace(first, { holderId: 'b', mode: 'shared_read', leaseDir })
    ).release();
    const files = await readdir(dir);
    expect(files).not.toContain(`${old.leaseId}.json`);
    expect(files).toContain(`${lease.leaseId}.json`);
  });
});

describe('executionSnapshot', () => {
  class SessionWorkspace extends LocalWorkspace {
    protected override async describeIdentity(): Promise<DescribedWorkspaceIdentity> {
      return { projectionKind: 'clone', sessionId: 'session-42' };
    }
  }

  it('lists live leases only, with the identity and the described session', async () => {
    const { workingDir, leaseDir, first, second } = await setup();
    const gone = await acquireWorkspace(first, { holderId: 'gone', mode: 'shared_read', leaseDir });
    await gone.release();
    const reader = await acquireWorkspace(second, {
      holderId: 'reader',
      mode: 'shared_read',
      leaseDir,
    });
    const snapshot = await executionSnapshot(first, { leaseDir });
    expect(snapshot).toEqual({
      activeWorkspace: await first.identity(),
      occupancy: [
        {
          holderId: 'reader',
          mode: 'shared_read',
          pid: process.pid,
          acquiredAt: reader.acquiredAt,
          leaseId: reader.leaseId,
        },
      ],
      executionRoot: workingDir,
      cwd: workingDir,
    });
    await reader.release();
    await using cloned = new SessionWorkspace({ workingDir });
    const described = await executionSnapshot(cloned, { leaseDir });
    expect(described.worktreeSession).toBe('session-42');
    expect(described.activeWorkspace.projectionKind).toBe('clone');
    expect(described.occupancy).toEqual([]);
  });
});
