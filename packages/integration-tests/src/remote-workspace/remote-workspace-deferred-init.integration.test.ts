/**
 * Deferred init against real agent-servers started with `--defer-init` (child processes of the
 * built CLI): `RemoteWorkspace.initState` / `initialize` (gated routes answer 503 until then, the
 * new key replaces the start-up one, a server initializes once) and a warm pool that configures
 * each member when it is claimed (`acquire({ initialize })`) and never reuses it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  createWorkspacePool,
  RemoteWorkspace,
  startOrClose,
  WorkspaceError,
  type WorkspacePoolEvent,
} from '@agent-workspace/core';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSandboxWorkspace } from '../test-support/process-sandbox-workspace.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A started sandbox whose agent-server is dormant, and a RemoteWorkspace on it with its key. */
async function dormantServer(serverArgs: string[] = []) {
  const sandbox = new ProcessSandboxWorkspace({ serverArgs: ['--defer-init', ...serverArgs] });
  cleanups.push(() => sandbox.close());
  await sandbox.start();
  const { host, apiKey } = await sandbox.agentServerEndpoint();
  const remote = (key: string | undefined) => {
    const workspace = new RemoteWorkspace({ host, apiKey: key, workingDir: sandbox.workingDir });
    cleanups.push(() => workspace.close());
    return workspace;
  };
  return { sandbox, host, startupKey: apiKey!, remote };
}

const newKey = () => randomBytes(24).toString('hex');

describe.each([
  { mode: 'streaming exec', serverArgs: [] },
  { mode: 'OpenHands polling', serverArgs: ['--no-extensions'] },
])('RemoteWorkspace on a dormant agent-server ($mode)', ({ serverArgs }) => {
  it('is alive and dormant, refuses commands until initialize, then only takes the new key', async () => {
    const { startupKey, remote } = await dormantServer(serverArgs);
    const workspace = remote(startupKey);
    expect(await workspace.alive()).toBe(true);
    expect(await workspace.initState()).toBe('dormant');

    const refused = await expectRejection(workspace.executeCommand('echo hi'), 'SERVER_ERROR');
    expect(refused.message).toContain("deferred-init state 'dormant'");
    expect(refused.message).toContain('POST /api/init');

    const userKey = newKey();
    await workspace.initialize({ sessionApiKeys: [userKey] });
    expect(await workspace.initState()).toBe('ready');
    const result = await workspace.executeCommand('echo ready');
    expect(result).toMatchObject({ exitCode: 0, stdout: 'ready\n' });
    expect((await workspace.agentServerEndpoint()).apiKey).toBe(userKey);

    // The start-up key no longer opens the server.
    const stale = remote(startupKey);
    await expectRejection(stale.executeCommand('true'), 'AUTHENTICATION_ERROR');
    // A server initializes once: with the start-up key (its 400) and with the new one (its 401).
    const again = await expectRejection(
      stale.initialize({ sessionApiKeys: [newKey()] }),
      'ALREADY_EXISTS',
    );
    expect(again.message).toContain('initialized before');
    await expectRejection(workspace.initialize(), 'ALREADY_EXISTS');
    // Still served with the user's key.
    expect((await workspace.executeCommand('echo still')).stdout).toBe('still\n');
  });
});

describe('RemoteWorkspace.initialize: refusals', () => {
  it('names a wrong init key, a bad sessionApiKeys entry, and never prints a key', async () => {
    const { startupKey, remote } = await dormantServer();
    const wrong = remote(newKey());
    const rejected = await expectRejection(wrong.initialize(), 'AUTHENTICATION_ERROR');
    expect(rejected.message).toContain('init key');

    const workspace = remote(startupKey);
    const tooLong = 'k'.repeat(513);
    const invalid = await expectRejection(
      workspace.initialize({ sessionApiKeys: ['fine-key-123', tooLong] }),
      'INVALID_ARGUMENT',
    );
    expect(invalid.details.field).toBe('sessionApiKeys[1]');
    expect(invalid.message).not.toContain(tooLong);
    const empty = await expectRejection(
      workspace.initialize({ sessionApiKeys: [] }),
      'INVALID_ARGUMENT',
    );
    expect(empty.details.field).toBe('sessionApiKeys');
    for (const error of [rejected, invalid, empty]) {
      expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(
        startupKey,
      );
    }
    // Nothing was applied: still dormant, and initializing without new keys keeps the old one.
    expect(await workspace.initState()).toBe('dormant');
    await workspace.initialize();
    expect((await workspace.executeCommand('echo kept')).stdout).toBe('kept\n');
  });

  it('tells a server started without deferred init', async () => {
    const sandbox = new ProcessSandboxWorkspace();
    cleanups.push(() => sandbox.close());
    await sandbox.start();
    expect(await sandbox.initState()).toBeUndefined();
    await expectRejection(sandbox.initialize({ sessionApiKeys: [newKey()] }), 'NOT_SUPPORTED');
    expect((await sandbox.executeCommand('echo plain')).stdout).toBe('plain\n');
  });
});

describe('a warm pool of dormant agent-servers, initialized per claim', () => {
  it('initializes on acquire, lends with the user key, closes on release, never reuses', async () => {
    const events: WorkspacePoolEvent[] = [];
    const pool = createWorkspacePool<ProcessSandboxWorkspace>({
      create: ({ signal }) =>
        startOrClose(new ProcessSandboxWorkspace({ serverArgs: ['--defer-init'] }), { signal }),
      min: 1,
      max: 2,
      // Present, yet an initialized member must never go through it.
      reset: async () => {},
      onEvent: (event) => events.push(event),
    });
    cleanups.push(() => pool.close());

    const userKey = newKey();
    const lease = await pool.acquire({
      initialize: (workspace, { signal }) =>
        workspace.initialize({ sessionApiKeys: [userKey], signal }),
    });
    const member = lease.workspace;
    expect(await member.initState()).toBe('ready');
    expect((await member.executeCommand('echo claimed')).stdout).toBe('claimed\n');
    expect((await member.agentServerEndpoint()).apiKey).toBe(userKey);
    const dir = member.workingDir;
    expect(pool.stats()).toMatchObject({ initialized: 1, inUse: 1 });

    await lease.release();
    expect(existsSync(dir)).toBe(false);
    expect(pool.stats()).toMatchObject({ returned: 0, discarded: 1 });
    expect(events).toContainEqual({ type: 'discarded', reason: 'released' });

    // The next claim gets another, still dormant server; without initialize it is refused.
    const next = await pool.acquire();
    expect(next.workspace.workingDir).not.toBe(dir);
    expect(await next.workspace.initState()).toBe('dormant');
    const error = await expectRejection(next.workspace.executeCommand('true'), 'SERVER_ERROR');
    expect(error.message).toContain('POST /api/init');
    await next.release();
  });

  it('discards a member whose initialize is refused and rejects the acquire with it', async () => {
    const pool = createWorkspacePool<ProcessSandboxWorkspace>({
      create: ({ signal }) =>
        startOrClose(new ProcessSandboxWorkspace({ serverArgs: ['--defer-init'] }), { signal }),
      max: 1,
      initialize: (workspace, { signal }) =>
        workspace.initialize({ sessionApiKeys: [newKey()], signal }),
    });
    cleanups.push(() => pool.close());
    let claimed: ProcessSandboxWorkspace | undefined;
    const error = await expectRejection(
      pool.acquire({
        initialize: async (workspace, { signal }) => {
          claimed = workspace;
          await workspace.initialize({ sessionApiKeys: [newKey()], signal });
          // A second init is what a broken claim would do: the server refuses it.
          await workspace.initialize({ signal });
        },
      }),
      'ALREADY_EXISTS',
    );
    expect(WorkspaceError.isInstance(error)).toBe(true);
    expect(pool.stats()).toMatchObject({ initializeFailed: 1, inUse: 0 });
    // The pool's own initialize serves the next claim on a fresh server.
    const lease = await pool.acquire();
    expect(lease.workspace).not.toBe(claimed);
    expect((await lease.workspace.executeCommand('echo ok')).stdout).toBe('ok\n');
    await lease.release();
  });
});
