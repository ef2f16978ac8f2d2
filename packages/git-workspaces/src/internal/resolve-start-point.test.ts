import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloneProvisioner } from '../clone/clone-provisioner.js';
import { git, makeTestArea, type TestArea } from '../test-support/test-project.js';
import { WorktreeProvisioner } from '../worktree/worktree-provisioner.js';

let area: TestArea;
let upstream: string;
let newer: string;
beforeEach(async () => {
  area = await makeTestArea('fetch');
  // The project's origin is a bare repository that has moved on since the project last fetched.
  upstream = path.join(area.base, 'upstream.git');
  await git(area.base, 'init', '-q', '--bare', '-b', 'main', upstream);
  await git(area.project, 'remote', 'add', 'origin', upstream);
  await git(area.project, 'push', '-q', 'origin', 'main');
  const other = path.join(area.base, 'other');
  await git(area.base, 'clone', '-q', upstream, other);
  await writeFile(path.join(other, 'newer.txt'), 'newer\n');
  await git(other, 'add', '-A');
  await git(other, 'commit', '-q', '-m', 'newer upstream');
  await git(other, 'push', '-q', 'origin', 'main');
  newer = await git(other, 'rev-parse', 'HEAD');
});
afterEach(async () => {
  await area.cleanup();
});

const kinds = [
  ['worktree', () => new WorktreeProvisioner({ root: area.root })],
  ['clone', () => new CloneProvisioner({ root: area.root })],
] as const;
const config = (sessionId: string, extra: { fetch?: boolean } = {}) => ({
  projectId: 'app',
  project: { path: area.project, defaultBranch: 'main', ...extra },
  sessionId,
  branch: `agent/${sessionId}`,
});

describe.each(kinds)('%s: fetch before branching', (_kind, make) => {
  it('fetches the default branch by default and starts at origin/<default>', async () => {
    const info = await make().create(config('s1'));
    expect(info.warnings).toBeUndefined();
    expect(await git(info.path, 'rev-parse', 'HEAD')).toBe(newer);
    expect(existsSync(path.join(info.path, 'newer.txt'))).toBe(true);
    expect(await git(area.project, 'rev-parse', 'refs/remotes/origin/main')).toBe(newer);
    // The local default branch is not moved; the new branch tracks nothing.
    expect(await git(area.project, 'rev-parse', 'main')).not.toBe(newer);
    await expect(git(info.path, 'config', '--get', 'branch.agent/s1.merge')).rejects.toThrow();
  });

  it('fetch: false starts at the local default branch without fetching', async () => {
    const local = await git(area.project, 'rev-parse', 'main');
    const info = await make().create(config('s2', { fetch: false }));
    expect(info.warnings).toBeUndefined();
    expect(await git(info.path, 'rev-parse', 'HEAD')).toBe(local);
    expect(await git(area.project, 'rev-parse', 'refs/remotes/origin/main')).toBe(local);
  });

  it('an unreachable origin falls back to the local default branch with a warning', async () => {
    const local = await git(area.project, 'rev-parse', 'main');
    await rm(upstream, { recursive: true, force: true });
    const info = await make().create(config('s3'));
    expect(await git(info.path, 'rev-parse', 'HEAD')).toBe(local);
    expect(info.warnings).toHaveLength(1);
    expect(info.warnings?.[0]).toMatch(
      /fetch of main from origin .* failed: .*branched from the local main/,
    );
    await git(area.project, 'remote', 'set-url', 'origin', `file://${area.base}/missing/repo.git`);
    const again = await make().create(config('s4'));
    expect(again.warnings?.[0]).toContain('missing/repo.git');
    expect(await git(again.path, 'rev-parse', 'HEAD')).toBe(local);
  });

  it('a project without origin: no fetch by default, a warning when fetch is asked for', async () => {
    await git(area.project, 'remote', 'remove', 'origin');
    const plain = await make().create(config('s5'));
    expect(plain.warnings).toBeUndefined();
    const asked = await make().create(config('s6', { fetch: true }));
    expect(asked.warnings?.[0]).toContain('has no remote "origin"');
  });

  it('parallel creates share the fetch and all start at origin/<default>', async () => {
    const provisioner = make();
    const infos = await Promise.all(
      Array.from({ length: 6 }, (_, index) => provisioner.create(config(`p${index}`))),
    );
    for (const info of infos) {
      expect(info.warnings).toBeUndefined();
      expect(await git(info.path, 'rev-parse', 'HEAD')).toBe(newer);
      expect(await git(info.path, 'status', '--porcelain')).toBe('');
    }
  });

  it('rejects a bad fetch option naming the field', async () => {
    const error = await expectRejection(
      make().create({
        ...config('s7'),
        project: { ...config('s7').project, fetch: 'yes' },
      } as never),
      'INVALID_CONFIG',
    );
    expect(error.details.fields).toEqual(['project.fetch']);
  });
});
