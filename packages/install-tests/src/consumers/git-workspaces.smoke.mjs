// Smoke test of @agent-workspace/git-workspaces installed alone: importing it registers the
// `worktree` and `clone` kinds with the one copy of core it installed; a worktree of a fresh
// repository is created, used and removed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkspace, WorkspaceError } from '@agent-workspace/core';
import { WorktreeProvisioner } from '@agent-workspace/git-workspaces';

await assert.rejects(
  () => createWorkspace({ kind: 'worktree', sessionId: 42 }),
  (error) => error instanceof WorkspaceError && error.code === 'INVALID_CONFIG',
);
const dir = mkdtempSync(path.join(tmpdir(), 'git-workspaces-smoke-'));
try {
  const repo = path.join(dir, 'repo');
  const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git('add', '.');
  git('-c', 'user.name=smoke', '-c', 'user.email=smoke@example.com', 'commit', '-qm', 'init');
  const workspace = await createWorkspace({
    kind: 'worktree',
    project: { path: repo, defaultBranch: 'main' },
    projectId: 'smoke',
    sessionId: 's1',
    branch: 'smoke/s1',
    root: path.join(dir, 'trees'),
  });
  const result = await workspace.executeCommand('git branch --show-current');
  assert.equal(result.stdout.trim(), 'smoke/s1');
  await workspace.close();
  assert.equal(new WorktreeProvisioner({ root: path.join(dir, 'trees') }).name, 'worktree');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('git-workspaces ok');
