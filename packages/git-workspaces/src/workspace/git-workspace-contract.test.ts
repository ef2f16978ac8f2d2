/**
 * The shared workspace contract on `worktree` and `clone` workspaces built the way users build
 * them: `createWorkspace({ kind, project, sessionId, branch })` after importing the package.
 *
 * The contract's git section needs `workingDir` outside any repository, and a tree is one. So
 * each tree made here is added to `GIT_CEILING_DIRECTORIES` of this test process: git run in a
 * directory below a tree (the contract's scratch directories) does not look up into the tree.
 * Git run in the tree itself still finds it. Only this test file does this.
 */
import { readdir } from 'node:fs/promises';
import { createWorkspace } from '@agent-workspace/core';
import { describeWorkspaceContract } from '@agent-workspace/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../index.js';
import path from 'node:path';
import { git, makeTestArea, type TestArea } from '../test-support/test-project.js';

let area: TestArea;
beforeAll(async () => {
  area = await makeTestArea('contract');
});
afterAll(async () => {
  await area.cleanup();
});

let created = 0;
const ceilings: string[] = [];
for (const kind of ['worktree', 'clone'] as const) {
  describeWorkspaceContract(`GitWorkspace (${kind})`, async () => {
    created += 1;
    const sessionId = `${kind}-${created}`;
    const workspace = await createWorkspace({
      kind,
      project: { path: area.project, defaultBranch: 'main' },
      projectId: 'contract',
      sessionId,
      branch: `contract/${sessionId}`,
      root: area.root,
      // The contract leaves scratch files behind: close() must still remove the tree.
      forceDestroy: true,
    });
    ceilings.push(workspace.workingDir);
    process.env.GIT_CEILING_DIRECTORIES = ceilings.join(':');
    expect(workspace.kind).toBe(kind);
    return workspace;
  });
}

describe('after the contract suites', () => {
  it('every tree they made was destroyed on close', async () => {
    expect(created).toBeGreaterThan(2);
    expect(await readdir(path.join(area.root, 'contract'))).toEqual(['.owners']);
    expect(await readdir(path.join(area.root, 'contract', '.owners'))).toEqual([]);
    const porcelain = await git(area.project, 'worktree', 'list', '--porcelain');
    expect(porcelain).not.toContain(area.root);
  });
});
