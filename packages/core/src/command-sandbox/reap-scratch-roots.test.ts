import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reapScratchRoots, SCRATCH_ROOT_PREFIX, scratchRootPrefix } from './reap-scratch-roots.js';

describe('reapScratchRoots', () => {
  let base: string;
  beforeEach(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'reap-scratch-roots-'));
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it("removes the roots of processes that are gone and keeps live ones' and other names", async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    const dead = `${SCRATCH_ROOT_PREFIX}${gone}-abc123`;
    const own = path.basename(`${scratchRootPrefix(base)}def456`);
    const parent = `${SCRATCH_ROOT_PREFIX}${process.ppid}-ghi789`;
    for (const name of [
      dead,
      own,
      parent,
      'agent-workspace-delta-xyz',
      `${SCRATCH_ROOT_PREFIX}x-1`,
    ]) {
      await mkdir(path.join(base, name, 'scratch-1'), { recursive: true });
      await writeFile(path.join(base, name, 'scratch-1', 'index'), 'x');
    }
    await reapScratchRoots(base);
    expect((await readdir(base)).sort()).toEqual(
      ['agent-workspace-delta-xyz', `${SCRATCH_ROOT_PREFIX}x-1`, own, parent].sort(),
    );
  });

  it('ignores a base that does not exist', async () => {
    await expect(reapScratchRoots(path.join(base, 'missing'))).resolves.toBeUndefined();
  });
});
