/**
 * The pool's `initialize` hook (claim-time configuration of a warm member): it runs after the
 * health check and before lending, per acquire when given there, bounded, and a member it ran on
 * is never reused. Members are real temp-dir sandboxes that, like a dormant agent-server,
 * initialize once.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { expectRejection, rejectionOf } from '../testing/rejection-of.js';
import {
  INIT_FILE,
  liveMembers,
  TEMP_DIR_KIND,
  type TempDirWorkspace,
} from './test-support/temp-dir-workspace.js';
import { type TempDirPoolOptions, useTempDirPools } from './test-support/use-temp-dir-pools.js';
import { createWorkspacePool } from './workspace-pool.js';
import type { WorkspacePoolEvent } from './workspace-pool-event.js';
import type { PooledWorkspaceHook } from './workspace-pool-options.js';

const { tempDir, kindPool } = useTempDirPools();

/** A pool of temp-dir workspaces under a fresh root, recording its events. */
async function makePool(options: TempDirPoolOptions = {}) {
  const root = await tempDir('pool-init-');
  const events: WorkspacePoolEvent[] = [];
  const pool = kindPool(root, { onEvent: (event) => events.push(event), ...options });
  return { pool, root, events };
}

/** An `initialize` delivering `key`, as a claim would. */
const deliver =
  (key: string): PooledWorkspaceHook<TempDirWorkspace> =>
  (workspace) =>
    workspace.initialize({ sessionApiKeys: [key] });

/** The keys a member was initialized with. */
const initializedWith = (workspace: TempDirWorkspace) =>
  readFile(path.join(workspace.workingDir, INIT_FILE), 'utf8');

/** Waits until `predicate` holds (closes run in the background). */
async function eventually(predicate: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await predicate()); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(await predicate()).toBe(true);
}

describe('createWorkspacePool: initialize', () => {
  it('initializes a warm member before lending it and closes it on release, even with reset', async () => {
    const resets: string[] = [];
    const { pool, root, events } = await makePool({
      min: 1,
      max: 2,
      initialize: deliver('pool-key'),
      reset: async (workspace) => void resets.push(workspace.workingDir),
    });
    await eventually(() => pool.stats().idle === 1);
    const lease = await pool.acquire();
    expect(await initializedWith(lease.workspace)).toBe('pool-key');
    expect(pool.stats()).toMatchObject({ inUse: 1, initialized: 1, initializeFailed: 0 });
    const types = events.map((event) => event.type);
    expect(types.indexOf('initialized')).toBeLessThan(types.indexOf('acquired'));
    const initialized = events.find((event) => event.type === 'initialized');
    expect(initialized).toMatchObject({ initializeMs: expect.any(Number) });

    const dir = lease.workspace.workingDir;
    await lease.release();
    // A server initializes once: never reset, never idle again.
    expect(resets).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(pool.stats()).toMatchObject({ returned: 0, discarded: 1 });
    expect(events).toContainEqual({ type: 'discarded', reason: 'released' });
    await eventually(async () => (await liveMembers(root)).length === 1);
  });

  it("uses the acquire's own initialize in place of the pool's", async () => {
    const { pool } = await makePool({ max: 2, initialize: deliver('pool-key') });
    const mine = await pool.acquire({ initialize: deliver('user-a') });
    const pools = await pool.acquire();
    expect(await initializedWith(mine.workspace)).toBe('user-a');
    expect(await initializedWith(pools.workspace)).toBe('pool-key');
    expect(pool.stats().initialized).toBe(2);
    await Promise.all([mine.release(), pools.release()]);
  });

  it('passes the hook a signal and the workspace itself (not the guarded view)', async () => {
    let seen: { signal: AbortSignal; workspace: TempDirWorkspace } | undefined;
    const { pool } = await makePool({ max: 1 });
    const lease = await pool.acquire({
      initialize: async (workspace, { signal }) => {
        seen = { signal, workspace };
      },
    });
    expect(seen?.signal.aborted).toBe(false);
    expect(seen?.workspace.workingDir).toBe(lease.workspace.workingDir);
    await lease.release();
  });

  it('discards the member and rejects the acquire with the error when initialize fails', async () => {
    const { pool, root, events } = await makePool({ max: 1 });
    const refused = new WorkspaceError({ code: 'AUTHENTICATION_ERROR', message: 'key refused' });
    let dir = '';
    const error = await rejectionOf(
      pool.acquire({
        initialize: async (workspace) => {
          dir = workspace.workingDir;
          throw refused;
        },
      }),
    );
    expect(error).toBe(refused);
    await eventually(() => !existsSync(dir));
    expect(pool.stats()).toMatchObject({
      inUse: 0,
      idle: 0,
      discarded: 1,
      initialized: 0,
      initializeFailed: 1,
    });
    expect(pool.stats().lastError).toMatchObject({
      during: 'initialize',
      code: 'AUTHENTICATION_ERROR',
    });
    expect(events).toContainEqual({ type: 'discarded', reason: 'initialize-failed' });

    // Something not a WorkspaceError is a PROVISIONING_ERROR saying what failed.
    const plain = await expectRejection(
      pool.acquire({ initialize: () => Promise.reject(new TypeError('no config')) }),
      'PROVISIONING_ERROR',
    );
    expect(plain.message).toContain('initialize hook');
    expect(plain.message).toContain('no config');

    // The pool still lends: a fresh member, not one an initialize touched.
    const lease = await pool.acquire();
    expect(existsSync(path.join(lease.workspace.workingDir, INIT_FILE))).toBe(false);
    await lease.release();
    expect(await liveMembers(root)).toEqual([]);
  });

  it('times out an initialize after initializeTimeoutMs, firing its signal', async () => {
    const { pool } = await makePool({ max: 1, initializeTimeoutMs: 50 });
    let hookSignal: AbortSignal | undefined;
    const began = performance.now();
    const error = await expectRejection(
      pool.acquire({
        initialize: (_workspace, { signal }) => {
          hookSignal = signal;
          // Ignores its signal: the pool must not wait for it.
          return new Promise<void>(() => {});
        },
      }),
      'PROVISIONING_ERROR',
    );
    expect(performance.now() - began).toBeLessThan(2_000);
    expect(error.message).toContain('initializeTimeoutMs');
    expect(error.details).toMatchObject({ during: 'initialize', timeoutMs: 50 });
    expect(hookSignal?.aborted).toBe(true);
    expect(pool.stats()).toMatchObject({ initializeFailed: 1, inUse: 0 });
  });

  it('rejects with ABORTED and discards the member when the caller aborts initialize', async () => {
    const { pool, root } = await makePool({ max: 1 });
    const controller = new AbortController();
    const pending = pool.acquire({
      signal: controller.signal,
      initialize: (_workspace, { signal }) =>
        new Promise<void>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason));
          controller.abort();
        }),
    });
    await expectRejection(pending, 'ABORTED');
    expect(pool.stats()).toMatchObject({ initializeFailed: 1, inUse: 0 });
    await eventually(async () => (await liveMembers(root)).length === 0);
  });

  it('rejects with WORKSPACE_CLOSED and closes the member when the pool closes meanwhile', async () => {
    const { pool, root } = await makePool({ max: 1 });
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const pending = pool.acquire({
      initialize: () => {
        entered();
        return new Promise<void>(() => {});
      },
    });
    await inside;
    expect(pool.stats().inUse).toBe(1);
    const rejected = expectRejection(pending, 'WORKSPACE_CLOSED');
    await pool.close();
    const error = await rejected;
    expect(error.details).toMatchObject({ pool: true });
    expect(await liveMembers(root)).toEqual([]);
    expect(pool.stats()).toMatchObject({ initializeFailed: 0, inUse: 0, closing: 0 });
  });

  it('never returns a member its holder initialized to the idle set', async () => {
    const { pool } = await makePool({ max: 1, reset: async () => {} });
    const first = await pool.acquire();
    const dir = first.workspace.workingDir;
    await first.release();
    // Reset and reused while nobody initialized it.
    const second = await pool.acquire();
    expect(second.workspace.workingDir).toBe(dir);
    await second.workspace.initialize({ sessionApiKeys: ['holder-key'] });
    await second.release();
    expect(existsSync(dir)).toBe(false);
    expect(pool.stats()).toMatchObject({ returned: 1, discarded: 1 });
    const third = await pool.acquire();
    expect(third.workspace.workingDir).not.toBe(dir);
    await third.release();
  });

  it('checks initialize and initializeTimeoutMs, naming the field', async () => {
    const root = await tempDir('pool-init-options-');
    const config = { root };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ initialize: 'yes' }, 'initialize'],
      [{ initializeTimeoutMs: 0 }, 'initializeTimeoutMs'],
      [{ initializeTimeoutMs: 25 * 60 * 60 * 1000 }, 'initializeTimeoutMs'],
    ];
    for (const [options, field] of cases) {
      let error: unknown;
      try {
        createWorkspacePool({ kind: TEMP_DIR_KIND, config, ...options });
      } catch (caught) {
        error = caught;
      }
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
      expect((error as WorkspaceError).details.field).toBe(field);
    }
    const { pool } = await makePool({ max: 1 });
    const bad = await expectRejection(
      pool.acquire({ initialize: 42 as unknown as PooledWorkspaceHook<TempDirWorkspace> }),
      'INVALID_ARGUMENT',
    );
    expect(bad.details.field).toBe('initialize');
    expect(pool.stats()).toMatchObject({ created: 0, inUse: 0 });
  });
});
