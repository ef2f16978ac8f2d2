import { existsSync } from 'node:fs';
import { readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireWorkspace, LocalWorkspace, WorkspaceError } from '@agent-workspace/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestArea, type TestArea, testConfig } from '../test-support/test-project.js';
import { GitWorkspace } from '../workspace/git-workspace.js';
import { WorktreeProvisioner } from '../worktree/worktree-provisioner.js';
import { declareTreeOwner } from './owner-record.js';
import { reapGitWorkspaces } from './reap-git-workspaces.js';
import { holdDirectoryLeaseArgs, useChildProcesses } from './test-support/child-processes.js';

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

let area: TestArea;
beforeEach(async () => {
  area = await makeTestArea('occupancy');
});
afterEach(async () => {
  await area.cleanup();
});
const startChild = useChildProcesses();

async function refusal(promise: Promise<unknown>): Promise<WorkspaceError> {
  const error = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!WorkspaceError.isInstance(error)) throw new Error(`expected a WorkspaceError, got ${error}`);
  return error;
}

/** A child holding a lease through a `LocalWorkspace` on `dir`, once it is ready. */
async function childHolding(
  dir: string,
  mode: 'shared_read' | 'exclusive_write',
  holderId: string,
) {
  const started = startChild(holdDirectoryLeaseArgs(dir, mode, holderId));
  expect(await started.firstLine).toMatchObject({ ready: true });
  return started;
}

/**
 * Makes a tree in a child process through the built package, as an orchestrator's `spawn` does:
 * optionally declares a long-lived owner, then exits on purpose (code 0).
 */
async function treeOfExitedCreator(sessionId: string, owner?: object): Promise<string> {
  expect(existsSync(DIST), `build the package first: ${DIST}`).toBe(true);
  const script = `
    import { WorktreeProvisioner, declareTreeOwner } from ${JSON.stringify(DIST)};
    const root = ${JSON.stringify(area.root)};
    const info = await new WorktreeProvisioner({ root, reapOnStart: false }).create({
      projectId: 'app', sessionId: ${JSON.stringify(sessionId)}, branch: 'agent/${sessionId}',
      project: { path: ${JSON.stringify(area.project)}, defaultBranch: 'main' },
    });
    const owner = ${JSON.stringify(owner ?? null)};
    if (owner) await declareTreeOwner({ root, path: info.path, owner });
    console.log(JSON.stringify({ path: info.path }));
  `;
  const child = startChild(['--input-type=module', '-e', script]);
  const { path: tree } = (await child.firstLine) as { path: string };
  expect(await child.exited).toBe(0);
  return tree;
}

describe('destructive operations and occupancy leases', () => {
  it('a LocalWorkspace and a worktree workspace on one directory contend for one lease', async () => {
    await using worktree = await GitWorkspace.create({
      kind: 'worktree',
      project: { path: area.project, defaultBranch: 'main' },
      root: area.root,
      projectId: 'app',
      sessionId: 'w1',
      branch: 'agent/w1',
      onClose: 'keep',
    });
    const held = await acquireWorkspace(worktree, {
      holderId: 'agent-w1',
      mode: 'exclusive_write',
    });
    const local = new LocalWorkspace({ workingDir: worktree.workingDir });
    const error = await refusal(
      acquireWorkspace(local, { holderId: 'other', mode: 'exclusive_write' }),
    );
    expect(error.code).toBe('WORKSPACE_OCCUPIED');
    expect(error.details).toMatchObject({ holderId: 'agent-w1', leaseKey: held.leaseKey });
    await held.release();
    await using after = await acquireWorkspace(local, { holderId: 'other', mode: 'shared_read' });
    expect(after.leaseKey).toBe(held.leaseKey);
  });

  it('destroy refuses while another process leases the tree (through a symlink), and overrideLeases says it forced', async () => {
    const provisioner = new WorktreeProvisioner({ root: area.root, reapOnStart: false });
    const info = await provisioner.create(testConfig(area, 's1'));
    const link = path.join(area.base, 'link-to-s1');
    await symlink(info.path, link);
    const holder = await childHolding(link, 'shared_read', 'tmux-agent');

    const error = await refusal(provisioner.destroy(info.path));
    expect(error.code).toBe('WORKSPACE_OCCUPIED');
    expect(error.message).toContain(`refusing to destroy ${info.path}`);
    expect(error.message).toContain(`"tmux-agent" (pid ${holder.child.pid}`);
    expect(error.details).toMatchObject({
      field: 'path',
      path: info.path,
      holderId: 'tmux-agent',
      pid: holder.child.pid,
    });
    expect(existsSync(info.path)).toBe(true);

    const forced = await provisioner.destroy(info.path, { overrideLeases: true });
    expect(forced).toMatchObject({
      removed: true,
      forced: true,
      holders: [{ holderId: 'tmux-agent', pid: holder.child.pid, mode: 'shared_read' }],
    });
    expect(existsSync(info.path)).toBe(false);
  });

  it('a git workspace closes (and destroys) its tree over its own lease, not over another holder', async () => {
    const mine = await GitWorkspace.create({
      kind: 'worktree',
      project: { path: area.project, defaultBranch: 'main' },
      root: area.root,
      projectId: 'app',
      sessionId: 'own',
      branch: 'agent/own',
    });
    await acquireWorkspace(mine, { holderId: 'me', mode: 'exclusive_write' });
    await mine.close();
    expect(existsSync(mine.workingDir)).toBe(false);

    const shared = await GitWorkspace.create({
      kind: 'worktree',
      project: { path: area.project, defaultBranch: 'main' },
      root: area.root,
      projectId: 'app',
      sessionId: 'shared',
      branch: 'agent/shared',
    });
    const holder = await childHolding(shared.workingDir, 'shared_read', 'reviewer');
    const error = await refusal(shared.close());
    expect(error.details).toMatchObject({ holderId: 'reviewer', pid: holder.child.pid });
    expect(existsSync(shared.workingDir)).toBe(true);
  });

  it('restore over an existing tree refuses while another process leases it', async () => {
    const provisioner = new WorktreeProvisioner({ root: area.root, reapOnStart: false });
    const info = await provisioner.create(testConfig(area, 'r1'));
    await childHolding(info.path, 'exclusive_write', 'writer');
    const error = await refusal(provisioner.restore(testConfig(area, 'r1'), info.path));
    expect(error).toMatchObject({ code: 'WORKSPACE_OCCUPIED', details: { holderId: 'writer' } });
    await expect(
      provisioner.restore(testConfig(area, 'r1'), info.path, { overrideLeases: true }),
    ).resolves.toMatchObject({ path: info.path });
  });
});

describe('the reaper and declared owners', () => {
  it('keeps the clean tree of an exited creator while its declared owner process lives, reaps it after', async () => {
    const owner = startChild(['-e', 'console.log("{}"); setInterval(() => {}, 60_000)']);
    await owner.firstLine;
    const tree = await treeOfExitedCreator('tmux', { type: 'process', pid: owner.child.pid });
    const record = JSON.parse(
      await readFile(path.join(area.root, 'app', '.owners', 'tmux.json'), 'utf8'),
    );
    expect(record.owner).toMatchObject({ type: 'process', pid: owner.child.pid });
    expect(record.owner.processStartTime).toMatch(/^\d+$/);

    const first = await reapGitWorkspaces({ root: area.root });
    expect(first.removed).toEqual([]);
    expect(first.kept).toEqual([
      expect.objectContaining({
        sessionId: 'tmux',
        reason: 'owner-alive',
        detail: `declared owner pid ${owner.child.pid}`,
      }),
    ]);
    owner.child.kill('SIGKILL');
    await owner.exited;
    const second = await reapGitWorkspaces({ root: area.root });
    expect(second.removed.map((reaped) => reaped.sessionId)).toEqual(['tmux']);
    expect(existsSync(tree)).toBe(false);
  });

  it('never reaps a leased tree; a declared lease holder counts as its owner', async () => {
    const leased = await treeOfExitedCreator('leased');
    const byOwner = await treeOfExitedCreator('by-owner', {
      type: 'lease',
      holderId: 'orchestrator',
    });
    const reader = await childHolding(leased, 'shared_read', 'someone');
    await childHolding(byOwner, 'exclusive_write', 'orchestrator');

    const report = await reapGitWorkspaces({ root: area.root });
    expect(report.removed).toEqual([]);
    expect(report.kept.map((kept) => [kept.sessionId, kept.reason])).toEqual([
      ['by-owner', 'owner-alive'],
      ['leased', 'leased'],
    ]);
    expect(report.kept[1]?.detail).toContain(`"someone" (pid ${reader.child.pid}`);
    expect(existsSync(leased)).toBe(true);
    expect(existsSync(byOwner)).toBe(true);

    reader.child.kill('SIGKILL');
    await reader.exited;
    const after = await reapGitWorkspaces({ root: area.root });
    expect(after.removed.map((reaped) => reaped.sessionId)).toEqual(['leased']);
  });

  it('restore keeps a declared owner in the record it rewrites', async () => {
    const provisioner = new WorktreeProvisioner({ root: area.root, reapOnStart: false });
    const config = testConfig(area, 'r1');
    const info = await provisioner.create(config);
    await declareTreeOwner({
      root: area.root,
      path: info.path,
      owner: { type: 'lease', holderId: 'orchestrator' },
    });
    await provisioner.restore(config, info.path);
    const record = JSON.parse(
      await readFile(path.join(area.root, 'app', '.owners', 'r1.json'), 'utf8'),
    );
    expect(record).toMatchObject({ pid: process.pid, owner: { holderId: 'orchestrator' } });
  });

  it('declareTreeOwner refuses a process that does not run and a tree without a record', async () => {
    const provisioner = new WorktreeProvisioner({ root: area.root, reapOnStart: false });
    const info = await provisioner.create(testConfig(area, 'd1'));
    const gone = startChild(['-e', 'console.log("{}")']);
    await gone.firstLine;
    await gone.exited;
    await expect(
      refusal(
        declareTreeOwner({
          root: area.root,
          path: info.path,
          owner: { type: 'process', pid: gone.child.pid! },
        }),
      ),
    ).resolves.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'owner.pid' } });
    await expect(
      refusal(
        declareTreeOwner({
          root: area.root,
          path: info.path,
          owner: { type: 'lease', holderId: '' } as never,
        }),
      ),
    ).resolves.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'owner' } });
    await expect(
      refusal(
        declareTreeOwner({
          root: area.root,
          path: path.join(area.root, 'app', 'nothing'),
          owner: undefined,
        }),
      ),
    ).resolves.toMatchObject({ code: 'NOT_FOUND' });
  });
});
