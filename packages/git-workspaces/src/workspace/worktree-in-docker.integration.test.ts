/**
 * A worktree bind-mounted into a DockerWorkspace: a command in the container edits the tree and
 * the host sees the edit through the worktree workspace's gitChanges / gitDiff.
 *
 * The container runs as the host user (`user: '<uid>:<gid>'` of this process) instead of the
 * image's uid 10001, so it can write the tree and the files it writes belong to the host user.
 */
import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import { requireDockerEngine } from '@agent-workspace/docker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitWorkspace } from '../index.js';
import { makeTestArea, type TestArea } from '../test-support/test-project.js';

const available = await requireDockerEngine('worktree in a DockerWorkspace');

describe.skipIf(!available)('worktree in a DockerWorkspace', () => {
  let area: TestArea;
  let image: string;
  beforeAll(async () => {
    area = await makeTestArea('docker');
    image = await resolveAgentServerImage();
  });
  afterAll(async () => {
    await area?.cleanup();
  });

  it('an edit made in the container shows in the worktree on the host', async () => {
    await using worktree = await GitWorkspace.create({
      kind: 'worktree',
      project: { path: area.project, defaultBranch: 'main' },
      projectId: 'app',
      sessionId: 'docker-1',
      branch: 'agent/docker-1',
      root: area.root,
      forceDestroy: true,
    });
    await using container = await DockerWorkspace.create({
      image,
      workingDir: '/workspace/project',
      mounts: [{ type: 'bind', source: worktree.workingDir, target: '/workspace/project' }],
      user: `${process.getuid?.()}:${process.getgid?.()}`,
    });
    const edit = await container.executeCommand(
      "printf 'edited in the container\\n' > README.md && printf 'new\\n' > added.txt && id -u",
    );
    expect(edit.exitCode, edit.stderr).toBe(0);
    expect(edit.stdout.trim()).toBe(String(process.getuid?.()));
    expect(await worktree.gitChanges('.')).toEqual([
      { status: 'UPDATED', path: 'README.md' },
      { status: 'ADDED', path: 'added.txt' },
    ]);
    expect(await worktree.gitDiff('README.md')).toEqual({
      modified: 'edited in the container\n',
      original: '# project\n',
    });
  });
});
