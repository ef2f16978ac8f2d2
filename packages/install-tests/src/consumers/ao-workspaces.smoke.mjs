// Smoke test of @agent-workspace/ao-workspaces installed alone: the worktree plugin module makes
// a tree of a fresh repository, lists it and removes it, without ao-core installed.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { worktree } from '@agent-workspace/ao-workspaces';

const dir = mkdtempSync(path.join(tmpdir(), 'ao-workspaces-smoke-'));
try {
  const repo = path.join(dir, 'repo');
  const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git('add', '.');
  git('-c', 'user.name=smoke', '-c', 'user.email=smoke@example.com', 'commit', '-qm', 'init');
  assert.equal(worktree.manifest.slot, 'workspace');
  const plugin = worktree.create({ root: path.join(dir, 'trees') });
  const project = { path: repo, defaultBranch: 'main' };
  const info = await plugin.create({
    projectId: 'smoke',
    project,
    sessionId: 's1',
    branch: 'smoke/s1',
  });
  assert.deepEqual(await plugin.list('smoke'), [info]);
  await plugin.destroy(info.path);
  assert.deepEqual(await plugin.list('smoke'), []);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('ao-workspaces ok');
