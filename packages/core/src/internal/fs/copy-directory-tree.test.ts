import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../../errors/workspace-error.js';
import { rejectionOf } from '../../testing/rejection-of.js';
import { copyDirectoryTree } from './copy-directory-tree.js';

let root: string;
let source: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'copy-directory-tree-'));
  source = path.join(root, 'source');
  await mkdir(source);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Whether this file system clones: the method the copy must report. */
async function expectedMethod(): Promise<'reflink' | 'copy'> {
  await writeFile(path.join(root, 'probe'), 'x');
  try {
    await copyFile(
      path.join(root, 'probe'),
      path.join(root, 'probe-clone'),
      constants.COPYFILE_FICLONE_FORCE,
    );
    return 'reflink';
  } catch {
    return 'copy';
  } finally {
    await rm(path.join(root, 'probe'), { force: true });
    await rm(path.join(root, 'probe-clone'), { force: true });
  }
}

/** Every path under `directory` (not following links), with its kind. */
async function listTree(directory: string, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  for (const name of (await readdir(directory)).sort()) {
    const stats = await lstat(path.join(directory, name));
    const kind = stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'dir' : 'file';
    found.push(`${prefix}${name}:${kind}`);
    if (kind === 'dir')
      found.push(...(await listTree(path.join(directory, name), `${prefix}${name}/`)));
  }
  return found;
}

describe('copyDirectoryTree', () => {
  it('copies files, directories, modes and modification times', async () => {
    await mkdir(path.join(source, 'bin'));
    await mkdir(path.join(source, 'empty'));
    await writeFile(path.join(source, 'bin', 'run'), '#!/bin/sh\necho hi\n');
    await chmod(path.join(source, 'bin', 'run'), 0o755);
    await writeFile(path.join(source, 'secret.key'), 'k');
    await chmod(path.join(source, 'secret.key'), 0o600);
    await writeFile(path.join(source, 'read-only'), 'r');
    await chmod(path.join(source, 'read-only'), 0o444);
    await chmod(path.join(source, 'empty'), 0o750);
    const old = new Date('2001-02-03T04:05:06Z');
    await utimes(path.join(source, 'bin', 'run'), old, old);
    await utimes(path.join(source, 'bin'), old, old);
    const destination = path.join(root, 'copy');

    const result = await copyDirectoryTree({ source, destination });

    expect(result).toEqual({ method: await expectedMethod(), files: 3, bytes: 20 });
    expect(await listTree(destination)).toEqual(await listTree(source));
    expect(await readFile(path.join(destination, 'bin', 'run'), 'utf8')).toBe(
      '#!/bin/sh\necho hi\n',
    );
    const mode = async (name: string) => (await stat(path.join(destination, name))).mode & 0o7777;
    expect(await mode('bin/run')).toBe(0o755);
    expect(await mode('secret.key')).toBe(0o600);
    expect(await mode('read-only')).toBe(0o444);
    expect(await mode('empty')).toBe(0o750);
    expect((await stat(path.join(destination, 'bin', 'run'))).mtime).toEqual(old);
    expect((await stat(path.join(destination, 'bin'))).mtime).toEqual(old);
    // Finer than milliseconds (a Date's precision), as `cp -a` keeps them.
    const written = (await stat(path.join(source, 'secret.key'))).mtimeMs;
    const copied = (await stat(path.join(destination, 'secret.key'))).mtimeMs;
    expect(Math.abs(copied - written)).toBeLessThan(0.001);
    // Nothing but the copy next to the source: the partial directory was renamed.
    expect((await readdir(root)).sort()).toEqual(['copy', 'source']);
  });

  it('copies links as links, verbatim, and never what they point at', async () => {
    const outside = path.join(root, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret'), 'outside the tree');
    await symlink(outside, path.join(source, 'escape'));
    await symlink('../outside/secret', path.join(source, 'relative'));
    await symlink('nowhere', path.join(source, 'dangling'));
    const destination = path.join(root, 'copy');

    const result = await copyDirectoryTree({ source, destination });

    expect(result.files).toBe(0);
    expect(await listTree(destination)).toEqual(['dangling:link', 'escape:link', 'relative:link']);
    expect(await readlink(path.join(destination, 'escape'))).toBe(outside);
    expect(await readlink(path.join(destination, 'relative'))).toBe('../outside/secret');
    expect(await readlink(path.join(destination, 'dangling'))).toBe('nowhere');
  });

  it('skips FIFOs and sockets', async () => {
    execFileSync('mkfifo', [path.join(source, 'pipe')]);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(source, 'socket'), resolve));
    try {
      await writeFile(path.join(source, 'kept'), 'x');
      const destination = path.join(root, 'copy');
      await copyDirectoryTree({ source, destination });
      expect(await readdir(destination)).toEqual(['kept']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('copies to a destination whose name is as long as a name may be', async () => {
    await writeFile(path.join(source, 'kept'), 'x');
    const destination = path.join(root, 'd'.repeat(255));
    await copyDirectoryTree({ source, destination });
    expect(await readdir(destination)).toEqual(['kept']);
  });

  it('refuses a destination that exists, naming destination', async () => {
    const destination = path.join(root, 'taken');
    await mkdir(destination);
    const error = await rejectionOf(copyDirectoryTree({ source, destination }));
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details.field).toBe('destination');
    expect((error as Error).message).toContain(destination);
    expect(await readdir(destination)).toEqual([]);
  });

  it('refuses a destination inside the source, a missing source and relative paths', async () => {
    const inside = await rejectionOf(
      copyDirectoryTree({ source, destination: path.join(source, 'fork') }),
    );
    expect((inside as WorkspaceError).details.field).toBe('destination');
    const missing = await rejectionOf(
      copyDirectoryTree({ source: path.join(root, 'nope'), destination: path.join(root, 'c') }),
    );
    expect((missing as WorkspaceError).details.field).toBe('source');
    const relative = await rejectionOf(copyDirectoryTree({ source, destination: 'copy' }));
    expect((relative as WorkspaceError).details.field).toBe('destination');
    expect((await readdir(root)).sort()).toEqual(['source']);
  });

  it('leaves nothing behind when aborted during the copy', async () => {
    for (let d = 0; d < 30; d += 1) {
      await mkdir(path.join(source, `d${d}`));
      await Promise.all(
        Array.from({ length: 100 }, (_, f) => writeFile(path.join(source, `d${d}`, `f${f}`), 'x')),
      );
    }
    const controller = new AbortController();
    const copying = copyDirectoryTree({
      source,
      destination: path.join(root, 'copy'),
      signal: controller.signal,
    });
    setImmediate(() => controller.abort(new Error('stop')));
    const error = await rejectionOf(copying);
    expect(WorkspaceError.isInstance(error, 'ABORTED')).toBe(true);
    expect((await readdir(root)).sort()).toEqual(['source']);
  });

  it('rejects ABORTED at once for an aborted signal', async () => {
    const error = await rejectionOf(
      copyDirectoryTree({
        source,
        destination: path.join(root, 'copy'),
        signal: AbortSignal.abort(),
      }),
    );
    expect(WorkspaceError.isInstance(error, 'ABORTED')).toBe(true);
    expect((await readdir(root)).sort()).toEqual(['source']);
  });

  it('never enters a directory swapped for a link to outside during the copy', async () => {
    const outside = path.join(root, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret'), 'outside the tree');
    await mkdir(path.join(source, 'sub'));
    await writeFile(path.join(source, 'sub', 'inner'), 'inside');
    await symlink(outside, path.join(source, 'sub.link'));
    const swapper = new Worker(SWAPPER, { eval: true, workerData: { directory: source } });
    await new Promise((resolve) => swapper.once('message', resolve));
    try {
      for (let n = 0; n < 40; n += 1) {
        const destination = path.join(root, `copy-${n}`);
        await copyDirectoryTree({ source, destination }).catch((error: Error) => {
          // An entry that keeps changing type is refused, never followed.
          expect(error.message).toContain('changed type');
        });
        const copied = await listTree(destination).catch(() => []);
        expect(copied.filter((entry) => entry.includes('secret'))).toEqual([]);
        await rm(destination, { recursive: true, force: true });
      }
    } finally {
      await swapper.terminate();
    }
  });
});

/** Keeps swapping `sub` (a directory) and `sub.link` (a link to outside) by renames. */
const SWAPPER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const at = (name) => workerData.directory + '/' + name;
let first = true;
function loop() {
  for (let n = 0; n < 200; n++) {
    try {
      fs.renameSync(at('sub'), at('sub.tmp'));
      fs.renameSync(at('sub.link'), at('sub'));
      fs.renameSync(at('sub.tmp'), at('sub.link'));
    } catch {}
  }
  if (first) { first = false; parentPort.postMessage('swapping'); }
  setImmediate(loop);
}
loop();
`;
