import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloneProvisioner } from '../clone/clone-provisioner.js';
import { git, makeTestArea, type TestArea } from '../test-support/test-project.js';
import { WorktreeProvisioner } from '../worktree/worktree-provisioner.js';
import { readProcessStartTime } from './read-process-start-time.js';
import { reapGitWorkspaces } from './reap-git-workspaces.js';

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

let area: TestArea;
beforeEach(async () => {
  area = await makeTestArea('reaper');
});
afterEach(async () => {
  await area.cleanup();
});

/**
 * Starts a `node` process that makes a tree through the built package, optionally leaves a file
 * in it, prints the tree's path and waits; then kills it with SIGKILL.
 */
async function treeOfKilledProcess(
  kind: 'worktree' | 'clone',
  sessionId: string,
  dirty: boolean,
): Promise<string> {
  const script = `
    import { writeFileSync } from 'node:fs';
    import { WorktreeProvisioner, CloneProvisioner } from ${JSON.stringify(DIST)};
    const Provisioner = ${kind === 'worktree' ? 'WorktreeProvisioner' : 'CloneProvisioner'};
    const provisioner = new Provisioner({ root: ${JSON.stringify(area.root)}, reapOnStart: false });
    const info = await provisioner.create({
      projectId: 'app', sessionId: ${JSON.stringify(sessionId)}, branch: 'child/${sessionId}',
      project: { path: ${JSON.stringify(area.project)}, defaultBranch: 'main' },
    });
    if (${dirty}) writeFileSync(info.path + '/wip.txt', 'unsaved');
    console.log(info.path);
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const printed = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(stdout.trim());
    });
    child.on('exit', (code) => reject(new Error(`child exited with ${code}: ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return printed;
}

describe('reapGitWorkspaces', () => {
  it('removes the clean tree of a SIGKILLed owner at the next provisioner start, keeps a dirty one', async () => {
    expect(existsSync(DIST), `build the package first: ${DIST}`).toBe(true);
    const clean = await treeOfKilledProcess('worktree', 'clean', false);
    const dirty = await treeOfKilledProcess('worktree', 'dirty', true);
    const cloned = await treeOfKilledProcess('clone', 'cloned', false);
    expect(clean).toBe(path.join(area.root, 'app', 'clean'));
    for (const tree of [clean, dirty, cloned]) expect(existsSync(tree)).toBe(true);

    const report = await new WorktreeProvisioner({ root: area.root }).start();
    expect(report?.removed.map((tree) => [tree.sessionId, tree.kind]).sort()).toEqual([
      ['clean', 'worktree'],
      ['cloned', 'clone'],
    ]);
    expect(report?.kept).toEqual([
      expect.objectContaining({
        sessionId: 'dirty',
        reason: 'uncommitted-work',
        detail: expect.stringContaining('"wip.txt"'),
      }),
    ]);
    expect(existsSync(clean)).toBe(false);
    expect(existsSync(cloned)).toBe(false);
    expect(existsSync(path.join(dirty, 'wip.txt'))).toBe(true);
    const porcelain = await git(area.project, 'worktree', 'list', '--porcelain');
    expect(porcelain).not.toContain(clean);
    expect(porcelain).toContain(dirty);
    await git(area.project, 'fsck', '--full');
  });

  it('keeps trees of live owners and unrecorded directories; a reused pid does not count as the owner', async () => {
    const worktrees = new WorktreeProvisioner({ root: area.root, reapOnStart: false });
    const mine = await worktrees.create({
      projectId: 'app',
      sessionId: 'mine',
      branch: 'b/mine',
      project: { path: area.project, defaultBranch: 'main' },
    });
    const reused = await new CloneProvisioner({ root: area.root, reapOnStart: false }).create({
      projectId: 'app',
      sessionId: 'reused',
      branch: 'b/reused',
      project: { path: area.project, defaultBranch: 'main' },
    });
    await mkdir(path.join(area.root, 'app', 'stray'));
    // Same (live) pid, other start time: the process that made it is gone and the pid reused.
    const recordFile = path.join(area.root, 'app', '.owners', 'reused.json');
    const record = JSON.parse(await readFile(recordFile, 'utf8'));
    expect(record.processStartTime).toBe(await readProcessStartTime(process.pid));
    await writeFile(recordFile, JSON.stringify({ ...record, processStartTime: '1' }));

    const report = await reapGitWorkspaces({ root: area.root });
    expect(report.removed.map((tree) => tree.sessionId)).toEqual(['reused']);
    expect(report.kept.map((tree) => [tree.sessionId, tree.reason])).toEqual([
      ['mine', 'owner-alive'],
      ['stray', 'no-owner-record'],
    ]);
    expect(existsSync(mine.path)).toBe(true);
    expect(existsSync(reused.path)).toBe(false);
  });

  it('stops with ABORTED when its signal fires', async () => {
    await new WorktreeProvisioner({ root: area.root, reapOnStart: false }).create({
      projectId: 'app',
      sessionId: 's',
      branch: 'b/s',
      project: { path: area.project, defaultBranch: 'main' },
    });
    await expect(
      reapGitWorkspaces({ root: area.root, signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });
});
