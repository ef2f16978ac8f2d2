import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRejection } from '../testing/rejection-of.js';
import { gitHistoryOf } from '../workspace/git-history.js';
import { LocalWorkspace } from './local-workspace.js';

// The history itself is checked by the contract's git section (local-workspace.test.ts); here,
// what is LocalWorkspace's own: the declaration, and refusals before any git runs.
describe('LocalWorkspace git history', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'local-git-history-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('declares gitHistory and is reachable through gitHistoryOf', async () => {
    await using workspace = new LocalWorkspace({ workingDir: root });
    expect(workspace.capabilities.gitHistory).toBe(true);
    expect(gitHistoryOf(workspace)).toBe(workspace);
  });

  it('refuses bad arguments naming the field, and any call after close()', async () => {
    const workspace = new LocalWorkspace({ workingDir: root });
    const limit = await expectRejection(workspace.gitCommits('', { limit: 0 }), 'INVALID_ARGUMENT');
    expect(limit.details?.field).toBe('limit');
    const sha = await expectRejection(
      workspace.gitCommitChanges('.', 'HEAD~1'),
      'INVALID_ARGUMENT',
    );
    expect(sha.details?.field).toBe('sha');
    const where = await expectRejection(workspace.gitCommits('bad\0path'), 'INVALID_ARGUMENT');
    expect(where.details?.field).toBe('path');
    await workspace.close();
    await expectRejection(workspace.gitCommits('.'), 'WORKSPACE_CLOSED');
    await expectRejection(workspace.gitCommitChanges('.', 'deadbeef'), 'WORKSPACE_CLOSED');
  });
});
