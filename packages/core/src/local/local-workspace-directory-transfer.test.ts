import { createHash } from 'node:crypto';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { directoryTransferOf } from '../workspace/directory-transfer.js';
import { LocalWorkspace } from './local-workspace.js';

/** Paths, types, modes, link targets and content hashes of a tree, sorted. */
async function describeTree(root: string, prefix = ''): Promise<string[]> {
  const lines: string[] = [];
  for (const name of (await readdir(path.join(root, prefix))).sort()) {
    const relative = path.join(prefix, name);
    const full = path.join(root, relative);
    const stats = await lstat(full);
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isSymbolicLink()) lines.push(`${relative} -> ${await readlink(full)}`);
    else if (stats.isDirectory()) {
      lines.push(`${relative}/ ${mode}`);
      lines.push(...(await describeTree(root, relative)));
    } else {
      const hash = createHash('sha256')
        .update(await readFile(full))
        .digest('hex');
      lines.push(`${relative} ${mode} ${hash.slice(0, 12)}`);
    }
  }
  return lines;
}

describe('LocalWorkspace directory transfer', () => {
  let scratch: string;
  let workspace: LocalWorkspace;

  beforeEach(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'local-directory-transfer-'));
    await mkdir(path.join(scratch, 'work'));
    workspace = new LocalWorkspace({ workingDir: path.join(scratch, 'work') });
  });
  afterEach(async () => {
    await workspace.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('is a DirectoryTransfer', () => {
    expect(directoryTransferOf(workspace)).toBe(workspace);
    expect(directoryTransferOf({})).toBeUndefined();
  });

  it('round-trips nested and empty directories, a link, modes and 10 000 small files', async () => {
    const source = path.join(scratch, 'source');
    await mkdir(path.join(source, 'nested/deeper'), { recursive: true });
    await mkdir(path.join(source, 'empty'));
    await writeFile(path.join(source, 'nested/deeper/tool.sh'), '#!/bin/sh\necho hi\n');
    await chmod(path.join(source, 'nested/deeper/tool.sh'), 0o755);
    await symlink('nested/deeper/tool.sh', path.join(source, 'tool'));
    for (let dir = 0; dir < 10; dir++) {
      await mkdir(path.join(source, `many/${dir}`), { recursive: true });
      await Promise.all(
        Array.from({ length: 1000 }, (_, index) =>
          writeFile(path.join(source, `many/${dir}/f${index}.txt`), `${dir}:${index}\n`),
        ),
      );
    }

    // Relative destination: resolved against workingDir.
    const up = await workspace.uploadDirectory(source, 'project');
    expect(up).toMatchObject({ success: true, files: 10_001 });
    expect(up.destinationPath).toBe(path.join(scratch, 'work/project'));
    expect(await describeTree(up.destinationPath)).toEqual(await describeTree(source));

    const down = await workspace.downloadDirectory('project', path.join(scratch, 'back'));
    expect(down).toMatchObject({ success: true, files: 10_001, bytes: up.bytes });
    expect(await describeTree(path.join(scratch, 'back'))).toEqual(await describeTree(source));
  }, 120_000);

  it('answers failures as results: a missing source, a destination inside the source', async () => {
    const missing = await workspace.uploadDirectory(path.join(scratch, 'nope'), 'x');
    expect(missing).toMatchObject({
      success: false,
      error: expect.stringMatching(/does not exist/),
    });
    const inside = await workspace.downloadDirectory('.', path.join(scratch, 'work/sub'));
    expect(inside).toMatchObject({
      success: false,
      error: expect.stringMatching(/inside the source/),
    });
  });

  it('rejects ABORTED when the signal fired, and after close WORKSPACE_CLOSED', async () => {
    const aborted = await rejectionOf(
      workspace.uploadDirectory(scratch, 'x', { signal: AbortSignal.abort() }),
    );
    expect(WorkspaceError.isInstance(aborted, 'ABORTED')).toBe(true);
    await workspace.close();
    const closed = await rejectionOf(workspace.downloadDirectory('.', scratch));
    expect(WorkspaceError.isInstance(closed, 'WORKSPACE_CLOSED')).toBe(true);
  });
});
