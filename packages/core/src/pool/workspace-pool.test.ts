import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { liveMembers, TEMP_DIR_KIND, TempDirWorkspace } from './test-support/temp-dir-workspace.js';
import { type TempDirPoolOptions, useTempDirPools } from './test-support/use-temp-dir-pools.js';
import { createWorkspacePool } from './workspace-pool.js';

const { tempDir, kindPool } = useTempDirPools();

/** A pool of temp-dir workspaces under a fresh root, built from the registry. */
async function makePool(options: TempDirPoolOptions = {}) {
  const root = await tempDir('pool-');
  return { pool: kindPool(root, options), root };
}

/** What `build` throws (it must throw). */
function thrownBy(build: () => unknown): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('createWorkspacePool: acquire and release', () => {
  it('lends a started workspace of a registered kind and discards it on release', async () => {
    const { pool, root } = await makePool({ max: 2 });
    const lease = await pool.acquire();
    expect(lease.workspace.kind).toBe(TEMP_DIR_KIND);
    expect(lease.workspace).toBeInstanceOf(TempDirWorkspace);
    const result = await lease.workspace.executeCommand('echo hi > note && cat note');
    expect(result.stdout.trim()).toBe('hi');
    const dir = lease.workspace.workingDir;
    expect(pool.stats()).toMatchObject({ inUse: 1, idle: 0, created: 1, acquired: 1 });

    await lease.release();
    expect(existsSync(dir)).toBe(false);
    expect(lease.released).toBe(true);
    expect(pool.stats()).toMatchObject({ inUse: 0, idle: 0, discarded: 1, closing: 0 });
    // Idempotent, and the stale reference cannot reach anything any more.
    await lease.release();
    expect(pool.stats().discarded).toBe(1);
    const stale = await rejectionOf(lease.workspace.executeCommand('true'));
    expect(WorkspaceError.isInstance(stale, 'WORKSPACE_CLOSED')).toBe(true);
    await expect(lease.workspace.close()).resolves.toBeUndefined();
    expect(await liveMembers(root)).toEqual([]);
  });

  it('releases on dispose and never hands the same files to the next holder by default', async () => {
    const { pool } = await makePool({ max: 1 });
    let first: string;
    {
      await using lease = await pool.acquire();
      first = lease.workspace.workingDir;
      await writeFile(path.join(first, 'secret.txt'), 'mine');
    }
    await using next = await pool.acquire();
    expect(next.workspace.workingDir).not.toBe(first);
    expect((await next.workspace.executeCommand('ls')).stdout).toBe('');
  });

  it('drops a workspace its holder closed, without closing it twice', async () => {
    const { pool } = await makePool({ max: 1, reset: async () => {} });
    const lease = await pool.acquire();
    await lease.workspace.close();
    await lease.release();
    expect(pool.stats()).toMatchObject({ idle: 0, inUse: 0, discarded: 1, returned: 0 });
    // Capacity came back: max is 1 and a new one is lent.
    await using again = await pool.acquire();
    expect(again.workspace.workingDir).not.toBe(lease.workspace.workingDir);
  });

  it('survives a workspace whose close() throws at once, and reports it', async () => {
    const root = await tempDir('pool-bad-close-');
    class BadClose extends TempDirWorkspace {
      override close(): Promise<void> {
        throw new Error('close exploded');
      }
    }
    await using pool = createWorkspacePool({
      create: async () =>
        new BadClose({ workingDir: (await TempDirWorkspace.start({ root })).workingDir }),
      max: 1,
    });
    const lease = await pool.acquire();
    await expect(lease.release()).resolves.toBeUndefined();
    expect(pool.stats()).toMatchObject({ discarded: 1, closing: 0, inUse: 0 });
    expect(pool.stats().lastError).toMatchObject({ during: 'close' });
    expect(pool.stats().lastError?.message).toContain('close exploded');
  });

  it('refuses a released view reached through its prototype, with no stray rejection', async () => {
    const { pool } = await makePool({ max: 1, reset: async () => {} });
    const lease = await pool.acquire();
    await lease.release();
    await using next = await pool.acquire();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const stale = lease.workspace;
      const prototype = Object.getPrototypeOf(stale) as TempDirWorkspace;
      const calls = [
        prototype.executeCommand.call(stale, 'touch stale'),
        Reflect.apply(prototype.fileUpload, stale, ['source.txt', 'stale']),
        prototype.gitChanges.call(stale, '.'),
        prototype.pause.call(stale),
      ];
      for (const call of calls) {
        const error = await rejectionOf(call);
        expect(WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED'), String(error)).toBe(true);
      }
      // Node reports unhandled rejections once the microtask queue is empty.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    // The next holder's workspace (the same one, reset) saw nothing of it.
    expect(next.workspace.workingDir).toBe(lease.workspace.workingDir);
    expect((await next.workspace.executeCommand('ls')).stdout).toBe('');
  });
});

describe('createWorkspacePool: reset', () => {
  it('resets a released workspace and lends it again', async () => {
    const resets: string[] = [];
    const { pool } = await makePool({
      max: 1,
      reset: async (workspace, { signal }) => {
        resets.push(workspace.workingDir);
        const result = await workspace.executeCommand('find . -mindepth 1 -delete', { signal });
        if (result.exitCode !== 0) throw new Error(result.stderr);
      },
    });
    const first = await pool.acquire();
    const dir = first.workspace.workingDir;
    await first.workspace.executeCommand('echo a > a.txt');
    await first.release();
    expect(resets).toEqual([dir]);
    expect(pool.stats()).toMatchObject({ idle: 1, returned: 1, discarded: 0 });

    const second = await pool.acquire();
    expect(second.workspace.workingDir).toBe(dir);
    expect(existsSync(path.join(dir, 'a.txt'))).toBe(false);
    // The first holder's stale view cannot touch the second holder's workspace.
    expect(
      WorkspaceError.isInstance(await rejectionOf(first.workspace.executeCommand('touch x'))),
    ).toBe(true);
    await first.workspace.close();
    expect((await second.workspace.executeCommand('pwd')).exitCode).toBe(0);

    // discard: true skips the reset.
    await second.release({ discard: true });
    expect(resets).toHaveLength(1);
    expect(existsSync(dir)).toBe(false);
  });

  it('discards a workspace whose reset throws or times out', async () => {
    let mode: 'throw' | 'hang' = 'throw';
    const { pool } = await makePool({
      max: 1,
      resetTimeoutMs: 50,
      reset: (_workspace, { signal }) =>
        mode === 'throw'
          ? Promise.reject(new Error('cannot clean'))
          : new Promise((_resolve, reject) =>
              signal.addEventListener('abort', () => reject(signal.reason)),
            ),
    });
    const thrown = await pool.acquire();
    await thrown.release();
    expect(existsSync(thrown.workspace.workingDir)).toBe(false);
    expect(pool.stats()).toMatchObject({ idle: 0, discarded: 1, returned: 0 });
    expect(pool.stats().lastError).toMatchObject({ during: 'reset', code: 'PROVISIONING_ERROR' });
    expect(pool.stats().lastError?.message).toContain('cannot clean');

    mode = 'hang';
    const hung = await pool.acquire();
    await hung.release();
    expect(existsSync(hung.workspace.workingDir)).toBe(false);
    expect(pool.stats()).toMatchObject({ idle: 0, discarded: 2 });
  });
});

describe('createWorkspacePool: max, waiting and timeouts', () => {
  it('never holds more than max and serves waiters first come, first served', async () => {
    const { pool, root } = await makePool({ max: 2 });
    let peak = 0;
    const sample = () => {
      const { idle, inUse, starting, resetting, closing } = pool.stats();
      peak = Math.max(peak, idle + inUse + starting + resetting + closing);
    };
    const held = await Promise.all([pool.acquire(), pool.acquire()]);
    const order: string[] = [];
    const waiters = ['a', 'b', 'c'].map((name) =>
      pool.acquire().then((lease) => {
        order.push(name);
        sample();
        return lease;
      }),
    );
    await vi.waitFor(() => expect(pool.stats().waiting).toBe(3));
    sample();
    expect((await liveMembers(root)).length).toBe(2);

    await held[0]!.release();
    const a = await waiters[0]!;
    expect(order).toEqual(['a']);
    await held[1]!.release();
    const b = await waiters[1]!;
    await a.release();
    const c = await waiters[2]!;
    expect(order).toEqual(['a', 'b', 'c']);
    expect(peak).toBeLessThanOrEqual(2);
    expect((await liveMembers(root)).length).toBeLessThanOrEqual(2);
    await Promise.all([b.release(), c.release()]);
    expect(pool.stats()).toMatchObject({ inUse: 0, waiting: 0, acquired: 5 });
  });

  it('times out, aborts and refuses waiters beyond maxWaiters', async () => {
    const { pool } = await makePool({ max: 1, maxWaiters: 1, acquireTimeoutMs: 50 });
    const held = await pool.acquire();

    const timedOut = await rejectionOf(pool.acquire());
    expect(WorkspaceError.isInstance(timedOut, 'RESOURCE_EXHAUSTED')).toBe(true);
    expect((timedOut as WorkspaceError).details).toMatchObject({ field: 'acquireTimeoutMs' });

    const controller = new AbortController();
    const aborted = pool.acquire({ signal: controller.signal });
    const refused = await rejectionOf(pool.acquire());
    expect((refused as WorkspaceError).details).toMatchObject({ field: 'maxWaiters' });
    controller.abort();
    expect(WorkspaceError.isInstance(await rejectionOf(aborted), 'ABORTED')).toBe(true);
    expect(pool.stats().waiting).toBe(0);

    const already = AbortSignal.abort();
    expect(
      WorkspaceError.isInstance(await rejectionOf(pool.acquire({ signal: already })), 'ABORTED'),
    ).toBe(true);
    // Nothing leaked: the one member is still the held one, and it serves the next acquire.
    await held.release();
    await using next = await pool.acquire();
    expect(pool.stats()).toMatchObject({ inUse: 1, waiting: 0, acquired: 2 });
    expect(next.released).toBe(false);
  });

  it('reports acquire counts and wait times', async () => {
    const { pool } = await makePool({ min: 1, max: 2 });
    await vi.waitFor(() => expect(pool.stats().idle).toBe(1));
    for (let round = 0; round < 3; round++) await (await pool.acquire()).release();
    const stats = pool.stats();
    expect(stats).toMatchObject({ acquired: 3, discarded: 3, min: 1, max: 2, closed: false });
    expect(stats.acquireWaitMs?.samples).toBe(3);
    expect(stats.acquireWaitMs!.p50).toBeLessThanOrEqual(stats.acquireWaitMs!.p95);
    expect(stats.acquireWaitMs!.p95).toBeLessThanOrEqual(stats.acquireWaitMs!.max);
  });
});

describe('createWorkspacePool: options', () => {
  it.each([
    [{ min: 3, max: 2 }, 'min'],
    [{ max: 0 }, 'max'],
    [{ max: 257 }, 'max'],
    [{ min: -1 }, 'min'],
    [{ idleTtlMs: 0 }, 'idleTtlMs'],
    [{ acquireTimeoutMs: Number.NaN }, 'acquireTimeoutMs'],
    [{ drainTimeoutMs: 25 * 60 * 60 * 1000 }, 'drainTimeoutMs'],
    [{ refillConcurrency: 5, max: 4 }, 'refillConcurrency'],
    [{ refillBackoff: { initialMs: 100, maxMs: 10 } }, 'refillBackoff.maxMs'],
    [{ reset: 'rm -rf' }, 'reset'],
    [{ maxWaiters: 0 }, 'maxWaiters'],
    [{ maxWaiter: 3 }, 'maxWaiter'],
  ])('refuses %j naming %s', async (bad, field) => {
    const root = await tempDir('pool-options-');
    const error = thrownBy(() =>
      createWorkspacePool({ kind: TEMP_DIR_KIND, config: { root }, ...(bad as object) }),
    );
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details).toEqual({ field });
  });

  it('checks the kind and its config when the pool is made', async () => {
    const unknown = thrownBy(() => createWorkspacePool({ kind: 'no-such-kind' }));
    expect(WorkspaceError.isInstance(unknown, 'UNKNOWN_WORKSPACE_KIND')).toBe(true);
    const invalid = thrownBy(() =>
      createWorkspacePool({ kind: TEMP_DIR_KIND, config: { root: '', extra: 1 } }),
    );
    expect(WorkspaceError.isInstance(invalid, 'INVALID_CONFIG')).toBe(true);
    expect((invalid as WorkspaceError).details.fields).toEqual(['config.root', 'config.extra']);
    expect(() =>
      createWorkspacePool({ kind: TEMP_DIR_KIND, create: async () => new TempDirWorkspace() }),
    ).toThrow(/create cannot be given with kind/);
  });

  it('accepts a typed create factory', async () => {
    const root = await tempDir('pool-factory-');
    await using pool = createWorkspacePool({
      create: () => TempDirWorkspace.start({ root }),
      max: 1,
    });
    await using lease = await pool.acquire();
    expect(await lease.workspace.alive()).toBe(true);
    expect(path.dirname(lease.workspace.workingDir)).toBe(root);
    expect(await liveMembers(root)).toEqual([path.basename(lease.workspace.workingDir)]);
  });
});
