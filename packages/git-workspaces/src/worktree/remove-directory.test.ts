import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeDirectory } from './remove-worktree.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'remove-directory-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('removeDirectory', () => {
  it('removes a deep tree and never follows its links out', async () => {
    const outside = path.join(base, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'keep.txt'), 'keep\n');
    const tree = path.join(base, 'tree');
    await mkdir(path.join(tree, 'a', 'b', 'c'), { recursive: true });
    await writeFile(path.join(tree, 'a', 'b', 'c', 'file.txt'), 'x');
    await symlink(outside, path.join(tree, 'a', 'link-to-outside'));
    await symlink(path.join(outside, 'keep.txt'), path.join(tree, 'file-link'));
    await removeDirectory(tree);
    expect(existsSync(tree)).toBe(false);
    expect(await readFile(path.join(outside, 'keep.txt'), 'utf8')).toBe('keep\n');
  });

  it('is done when the directory is already gone', async () => {
    await removeDirectory(path.join(base, 'never-made'));
    expect(existsSync(path.join(base, 'never-made'))).toBe(false);
  });
});
