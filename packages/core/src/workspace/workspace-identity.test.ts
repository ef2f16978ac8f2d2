import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { LocalWorkspace } from '../local/local-workspace.js';
import type { Workspace } from './workspace.js';
import { type DescribedWorkspaceIdentity, workspaceIdOf } from './workspace-identity.js';

const made: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'identity-test-')));
  made.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

class WorktreeLikeWorkspace extends LocalWorkspace {
  constructor(
    workingDir: string,
    readonly described: DescribedWorkspaceIdentity,
  ) {
    super({ workingDir });
  }
  protected override async describeIdentity(): Promise<DescribedWorkspaceIdentity> {
    return this.described;
  }
}

describe('BaseWorkspace.identity()', () => {
  it('defaults everything to workingDir, canonical, exclusive_write', async () => {
    const dir = await tempDir();
    await using workspace = new LocalWorkspace({ workingDir: dir });
    const identity = await workspace.identity();
    expect(identity).toEqual({
      workspaceId: workspaceIdOf({ host: os.hostname(), kind: 'local', anchor: dir }),
      anchor: dir,
      executionRoot: dir,
      cwd: dir,
      projectionKind: 'canonical',
      accessMode: 'exclusive_write',
    });
    expect(identity.workspaceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('gives two objects on one directory the same id, and other directories other ids', async () => {
    const [one, two] = [await tempDir(), await tempDir()];
    await using a = new LocalWorkspace({ workingDir: one });
    await using b = new LocalWorkspace({ workingDir: one });
    await using c = new LocalWorkspace({ workingDir: two });
    const [ia, ib, ic] = await Promise.all([a.identity(), b.identity(), c.identity()]);
    expect(ia.workspaceId).toBe(ib.workspaceId);
    expect(ic.workspaceId).not.toBe(ia.workspaceId);
  });

  it('is sha256(host NUL kind NUL anchor), the executionRoot joining only when it differs', () => {
    const base = { host: 'h', kind: 'local', anchor: '/a' };
    expect(workspaceIdOf(base)).toBe(workspaceIdOf({ ...base, executionRoot: '/a' }));
    expect(workspaceIdOf({ ...base, executionRoot: '/b' })).not.toBe(workspaceIdOf(base));
    expect(workspaceIdOf({ ...base, kind: 'remote' })).not.toBe(workspaceIdOf(base));
    expect(workspaceIdOf({ ...base, host: 'other' })).not.toBe(workspaceIdOf(base));
  });

  it('takes what a subclass describes and defaults the rest', async () => {
    const [repository, worktree] = [await tempDir(), await tempDir()];
    await using workspace = new WorktreeLikeWorkspace(worktree, {
      projectionKind: 'git_worktree',
      anchor: repository,
      sessionId: 'session-1',
    });
    const identity = await workspace.identity();
    expect(identity).toEqual({
      workspaceId: workspaceIdOf({
        host: os.hostname(),
        kind: 'local',
        anchor: repository,
        executionRoot: worktree,
      }),
      anchor: repository,
      executionRoot: worktree,
      cwd: worktree,
      projectionKind: 'git_worktree',
      accessMode: 'exclusive_write',
    });
    // Two worktrees of one repository are two workspaces.
    const other = await tempDir();
    await using sibling = new WorktreeLikeWorkspace(other, { anchor: repository });
    expect((await sibling.identity()).workspaceId).not.toBe(identity.workspaceId);
  });

  it('rejects after close and on an aborted signal', async () => {
    const workspace = new LocalWorkspace({ workingDir: await tempDir() });
    const controller = new AbortController();
    controller.abort();
    await expect(workspace.identity({ signal: controller.signal })).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'ABORTED'),
    );
    await workspace.close();
    await expect(workspace.identity()).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED'),
    );
  });

  it('is optional on the Workspace interface', () => {
    const custom: Workspace = {
      kind: 'custom',
      workingDir: '/',
      executeCommand: async () => {
        throw new Error('unused');
      },
      fileUpload: async () => ({ success: true, sourcePath: '', destinationPath: '' }),
      fileDownload: async () => ({ success: true, sourcePath: '', destinationPath: '' }),
      gitChanges: async () => [],
      gitDiff: async () => ({ modified: null, original: null }),
      pause: async () => {},
      resume: async () => {},
      close: async () => {},
      [Symbol.asyncDispose]: async () => {},
    };
    expect(custom.identity).toBeUndefined();
  });
});
