import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { StartGate } from './test-support/start-gate.js';
import { liveMembers } from './test-support/temp-dir-workspace.js';
import { useTempDirPools } from './test-support/use-temp-dir-pools.js';
import { createWorkspacePool } from './workspace-pool.js';
import type { WorkspacePoolEvent } from './workspace-pool-event.js';

const { tempDir, track, kindPool } = useTempDirPools();

describe('createWorkspacePool: warm members', () => {
  it('keeps min members warm and refills after each acquire, at most refillConcurrency at once', async () => {
    const root = await tempDir('pool-min-');
    const gate = new StartGate({ root });
    const pool = track(
      createWorkspacePool({ create: gate.create, min: 3, max: 6, refillConcurrency: 2 }),
    );
    await vi.waitFor(() => expect(gate.held).toBe(2));
    expect(pool.stats().starting).toBe(2);
    gate.open(2);
    await vi.waitFor(() => expect(gate.held).toBe(1));
    gate.open(1);
    await vi.waitFor(() =>
      expect(pool.stats()).toMatchObject({ idle: 3, starting: 0, created: 3 }),
    );

    const lease = await pool.acquire();
    expect(lease.waitedMs).toBeGreaterThanOrEqual(0);
    await vi.waitFor(() => expect(gate.held).toBe(1));
    gate.open(1);
    await vi.waitFor(() => expect(pool.stats()).toMatchObject({ idle: 3, inUse: 1, created: 4 }));
    await lease.release();
    expect((await liveMembers(root)).length).toBe(3);
  });

  it('closes idle members beyond min after idleTtlMs and keeps min', async () => {
    const root = await tempDir('pool-ttl-');
    const pool = kindPool(root, { min: 1, max: 3, idleTtlMs: 30, reset: async () => {} });
    const leases = await Promise.all([pool.acquire(), pool.acquire(), pool.acquire()]);
    await Promise.all(leases.map((lease) => lease.release()));
    expect(pool.stats().returned).toBe(3);
    await vi.waitFor(() => expect(pool.stats()).toMatchObject({ idle: 1, expired: 2, closing: 0 }));
    expect((await liveMembers(root)).length).toBe(1);
    // The kept one is the most recently returned and still works.
    await using lease = await pool.acquire();
    expect((await lease.workspace.executeCommand('echo ok')).stdout.trim()).toBe('ok');
  });

  it('does not lend a dead warm member, and replaces it', async () => {
    const root = await tempDir('pool-dead-');
    const pool = kindPool(root, { min: 1, max: 2 });
    await vi.waitFor(() => expect(pool.stats().idle).toBe(1));
    const [dead] = await liveMembers(root);
    await rm(path.join(root, dead!), { recursive: true });

    await using lease = await pool.acquire();
    expect(path.basename(lease.workspace.workingDir)).not.toBe(dead);
    expect(await lease.workspace.alive()).toBe(true);
    expect(pool.stats()).toMatchObject({ dead: 1, discarded: 1 });
    await vi.waitFor(() => expect(pool.stats().idle).toBe(1));
  });

  it('finds idle members that died in the background and replaces them', async () => {
    const root = await tempDir('pool-idle-check-');
    const pool = kindPool(root, { min: 2, max: 2, idleCheckIntervalMs: 20 });
    await vi.waitFor(() => expect(pool.stats().idle).toBe(2));
    const before = await liveMembers(root);
    await rm(path.join(root, before[0]!), { recursive: true });
    await vi.waitFor(() => expect(pool.stats()).toMatchObject({ dead: 1, idle: 2, created: 3 }));
    const after = await liveMembers(root);
    expect(after).toHaveLength(2);
    expect(after).not.toContain(before[0]);
  });
});

describe('createWorkspacePool: failed starts', () => {
  it('counts failed refills, backs off, reports lastError, and recovers', async () => {
    const root = path.join(await tempDir('pool-fail-'), 'not-yet');
    const events: WorkspacePoolEvent[] = [];
    const pool = kindPool(root, {
      min: 1,
      max: 2,
      refillBackoff: { initialMs: 10, maxMs: 40 },
      onEvent: (event) => {
        events.push(event);
        throw new Error('a listener that throws changes nothing');
      },
    });
    await vi.waitFor(() => expect(pool.stats().failedStarts).toBeGreaterThanOrEqual(4));
    const delays = events.flatMap((event) =>
      event.type === 'start-failed' ? [event.retryInMs] : [],
    );
    expect(delays.slice(0, 4)).toEqual([10, 20, 40, 40]);
    expect(pool.stats().lastError).toMatchObject({ code: 'PROVISIONING_ERROR', during: 'start' });
    expect(pool.stats().lastError?.message).toContain('ENOENT');

    // An acquire that needs a start of its own gets that start's error.
    const refused = await rejectionOf(pool.acquire());
    expect(WorkspaceError.isInstance(refused, 'PROVISIONING_ERROR')).toBe(true);
    expect(pool.stats().waiting).toBe(0);

    await mkdir(root);
    await vi.waitFor(() => expect(pool.stats().idle).toBe(1));
    await using lease = await pool.acquire();
    expect(await lease.workspace.alive()).toBe(true);
    expect(events.some((event) => event.type === 'started')).toBe(true);
  });
});

describe('createWorkspacePool: warm-up', () => {
  it('warms each member before it goes idle, and closes one whose warm-up fails', async () => {
    const root = await tempDir('pool-warm-');
    let fail = true;
    const pool = kindPool(root, {
      max: 1,
      refillBackoff: { initialMs: 10, maxMs: 10 },
      warmUp: async (workspace, { signal }) => {
        if (fail) throw new Error('warm-up refused');
        await workspace.executeCommand('echo warm > .warm', { signal });
      },
    });
    const refused = await rejectionOf(pool.acquire());
    expect((refused as WorkspaceError).message).toContain('warm-up refused');
    expect(pool.stats()).toMatchObject({ failedStarts: 1, created: 0 });
    expect(await liveMembers(root)).toEqual([]);

    fail = false;
    await using lease = await pool.acquire();
    expect((await lease.workspace.executeCommand('cat .warm')).stdout.trim()).toBe('warm');
    expect(pool.stats()).toMatchObject({ failedStarts: 1, created: 1 });
  });
});

describe('createWorkspacePool: close', () => {
  it('waits for holders, rejects waiters, and leaves no member behind', async () => {
    const root = await tempDir('pool-close-');
    const pool = kindPool(root, { min: 1, max: 2, drainTimeoutMs: 10_000 });
    const held = await Promise.all([pool.acquire(), pool.acquire()]);
    const waiter = pool.acquire();
    await vi.waitFor(() => expect(pool.stats().waiting).toBe(1));

    const closing = pool.close();
    expect(WorkspaceError.isInstance(await rejectionOf(waiter), 'WORKSPACE_CLOSED')).toBe(true);
    expect(WorkspaceError.isInstance(await rejectionOf(pool.acquire()), 'WORKSPACE_CLOSED')).toBe(
      true,
    );
    let closed = false;
    void closing.then(() => {
      closed = true;
    });
    // A holder still works until it releases; close() waits for it.
    expect((await held[0]!.workspace.executeCommand('echo still')).stdout.trim()).toBe('still');
    await held[0]!.release();
    expect(closed).toBe(false);
    await held[1]!.release();
    await closing;
    expect(pool.stats()).toMatchObject({
      idle: 0,
      inUse: 0,
      starting: 0,
      closing: 0,
      closed: true,
    });
    expect(await liveMembers(root)).toEqual([]);
    expect(pool.close()).toBe(closing);
  });

  it('closes members still leased after drainTimeoutMs and cuts their holders off', async () => {
    const root = await tempDir('pool-drain-');
    const pool = kindPool(root, { max: 1, drainTimeoutMs: 20 });
    const lease = await pool.acquire();
    await pool.close();
    expect(existsSync(lease.workspace.workingDir)).toBe(false);
    expect(lease.released).toBe(true);
    const cut = await rejectionOf(lease.workspace.executeCommand('true'));
    expect(WorkspaceError.isInstance(cut, 'WORKSPACE_CLOSED')).toBe(true);
    await lease.release();
    expect(pool.stats()).toMatchObject({ discarded: 1, inUse: 0 });
    expect(await liveMembers(root)).toEqual([]);
  });

  it('aborts starts in flight and closes what they made', async () => {
    const root = await tempDir('pool-close-starts-');
    const gate = new StartGate({ root });
    const pool = track(createWorkspacePool({ create: gate.create, min: 2, max: 4 }));
    await vi.waitFor(() => expect(gate.held).toBe(2));
    const waiter = rejectionOf(pool.acquire());
    await vi.waitFor(() => expect(pool.stats()).toMatchObject({ waiting: 1, starting: 2 }));
    expect((await liveMembers(root)).length).toBe(2);
    await pool.close();
    expect(gate.aborted).toBe(2);
    expect(WorkspaceError.isInstance(await waiter, 'WORKSPACE_CLOSED')).toBe(true);
    expect(await liveMembers(root)).toEqual([]);
    expect(pool.stats()).toMatchObject({ starting: 0, created: 0, failedStarts: 0 });
  });

  it('closes the workspace of a start that ignores the abort once it arrives', async () => {
    const root = await tempDir('pool-close-stubborn-');
    const gate = new StartGate({ root, ignoreSignal: true });
    const pool = track(createWorkspacePool({ create: gate.create, min: 1, max: 1 }));
    await vi.waitFor(() => expect(gate.held).toBe(1));
    const closing = pool.close();
    expect(pool.stats().starting).toBe(1);
    gate.open();
    await closing;
    expect(await liveMembers(root)).toEqual([]);
    expect(pool.stats()).toMatchObject({ starting: 0, created: 0, discarded: 1 });
  });
});
