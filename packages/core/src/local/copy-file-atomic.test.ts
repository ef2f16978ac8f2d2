import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { TEMPORARY_FILE_PATTERN } from '../fs/write-stream-atomic.js';
import {
  describeCopyError,
  findNonDirectoryAncestor,
} from '../internal/files/describe-copy-error.js';
import { copyFileAtomic } from './copy-file-atomic.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'copy-file-atomic-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Names in `directory` that look like our temporary files. */
async function tempFiles(directory: string): Promise<string[]> {
  return (await readdir(directory)).filter((name) => TEMPORARY_FILE_PATTERN.test(name));
}

async function writeSource(name: string, content: Buffer | string): Promise<string> {
  const file = path.join(root, name);
  await writeFile(file, content);
  return file;
}

describe('copyFileAtomic', () => {
  it('round-trips 5 MiB of random binary data', async () => {
    const content = randomBytes(5 * 1024 * 1024);
    const sourcePath = await writeSource('big.bin', content);
    const destinationPath = path.join(root, 'out', 'big.bin');

    const result = await copyFileAtomic({ sourcePath, destinationPath });

    expect(result).toEqual({
      success: true,
      sourcePath,
      destinationPath,
      fileSize: content.length,
    });
    expect(sha256(await readFile(destinationPath))).toBe(sha256(content));
    expect(await tempFiles(path.dirname(destinationPath))).toEqual([]);
  });

  it('copies an empty file', async () => {
    const sourcePath = await writeSource('empty', '');
    const destinationPath = path.join(root, 'empty-copy');

    const result = await copyFileAtomic({ sourcePath, destinationPath });

    expect(result).toMatchObject({ success: true, fileSize: 0 });
    expect((await stat(destinationPath)).size).toBe(0);
  });

  it('creates missing parent directories', async () => {
    const sourcePath = await writeSource('a.txt', 'hello');
    const destinationPath = path.join(root, 'x', 'y', 'z', 'a.txt');

    expect((await copyFileAtomic({ sourcePath, destinationPath })).success).toBe(true);
    expect(await readFile(destinationPath, 'utf8')).toBe('hello');
  });

  it('keeps the permission bits of the source', async () => {
    const sourcePath = await writeSource('script.sh', '#!/bin/sh\necho hi\n');
    await chmod(sourcePath, 0o755);
    const readOnly = await writeSource('read-only.txt', 'ro');
    await chmod(readOnly, 0o440);

    await copyFileAtomic({ sourcePath, destinationPath: path.join(root, 'copy.sh') });
    await copyFileAtomic({ sourcePath: readOnly, destinationPath: path.join(root, 'copy-ro') });

    expect((await stat(path.join(root, 'copy.sh'))).mode & 0o777).toBe(0o755);
    expect((await stat(path.join(root, 'copy-ro'))).mode & 0o777).toBe(0o440);
  });

  it('replaces an existing destination completely', async () => {
    const sourcePath = await writeSource('short.txt', 'new');
    const destinationPath = await writeSource('long.txt', 'old content that is longer');

    const result = await copyFileAtomic({ sourcePath, destinationPath });

    expect(result).toMatchObject({ success: true, fileSize: 3 });
    expect(await readFile(destinationPath, 'utf8')).toBe('new');
    expect(await tempFiles(root)).toEqual([]);
  });

  it('copies a file onto itself without losing its content', async () => {
    const sourcePath = await writeSource('self.txt', 'same');

    const result = await copyFileAtomic({ sourcePath, destinationPath: sourcePath });

    expect(result.success).toBe(true);
    expect(await readFile(sourcePath, 'utf8')).toBe('same');
  });

  it('leaves an existing destination untouched when the copy fails', async () => {
    const destinationPath = await writeSource('keep.txt', 'precious');
    const sourcePath = path.join(root, 'missing.txt');

    const result = await copyFileAtomic({ sourcePath, destinationPath });

    expect(result.success).toBe(false);
    expect(await readFile(destinationPath, 'utf8')).toBe('precious');
    expect(await tempFiles(root)).toEqual([]);
  });

  describe('failures are results with a clear message', () => {
    it('reports a missing source', async () => {
      const sourcePath = path.join(root, 'nope.txt');
      const destinationPath = path.join(root, 'dest.txt');

      const result = await copyFileAtomic({ sourcePath, destinationPath });

      expect(result).toEqual({
        success: false,
        sourcePath,
        destinationPath,
        error: `source file does not exist: ${sourcePath}`,
      });
      await expect(stat(destinationPath)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('reports a source below a file as missing', async () => {
      const file = await writeSource('plain', 'x');
      const sourcePath = path.join(file, 'child');

      const result = await copyFileAtomic({ sourcePath, destinationPath: path.join(root, 'd') });

      expect(result.error).toBe(`source file does not exist: ${sourcePath}`);
    });

    it('reports a source that is a directory', async () => {
      const sourcePath = path.join(root, 'dir');
      await mkdir(sourcePath);
      const destinationPath = path.join(root, 'dest');

      const result = await copyFileAtomic({ sourcePath, destinationPath });

      expect(result).toMatchObject({
        success: false,
        error: `source is a directory: ${sourcePath}`,
      });
      await expect(stat(destinationPath)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('reports a destination that is an existing directory', async () => {
      const sourcePath = await writeSource('f.txt', 'x');
      const destinationPath = path.join(root, 'existing-dir');
      await mkdir(destinationPath);
      await writeFile(path.join(destinationPath, 'inside'), 'kept');

      const result = await copyFileAtomic({ sourcePath, destinationPath });

      expect(result).toMatchObject({
        success: false,
        error: `destination is a directory: ${destinationPath}`,
      });
      expect(await readdir(destinationPath)).toEqual(['inside']);
      expect(await tempFiles(root)).toEqual([]);
    });

    it('reports a destination whose parent is a file', async () => {
      const sourcePath = await writeSource('f.txt', 'x');
      const blocker = await writeSource('blocker', 'i am a file');
      const destinationPath = path.join(blocker, 'child.txt');

      const result = await copyFileAtomic({ sourcePath, destinationPath });

      expect(result).toMatchObject({
        success: false,
        error: `destination parent is not a directory: ${blocker} is a file`,
      });
      expect(await readFile(blocker, 'utf8')).toBe('i am a file');
    });

    it('reports a destination whose ancestor is a file', async () => {
      const sourcePath = await writeSource('f.txt', 'x');
      const blocker = await writeSource('blocker', 'i am a file');
      const destinationPath = path.join(blocker, 'a', 'b', 'child.txt');

      const result = await copyFileAtomic({ sourcePath, destinationPath });

      expect(result.error).toBe(`destination parent is not a directory: ${blocker} is a file`);
      expect(await readdir(root)).toEqual(['blocker', 'f.txt']);
    });

    it('words other errors by the step that failed', () => {
      const paths = { sourcePath: '/src/a', destinationPath: '/srv/b' };
      const errno = (code: string) => Object.assign(new Error(code), { code });

      expect(describeCopyError(errno('EISDIR'), 'read-source', paths)).toBe(
        'source is a directory: /src/a',
      );
      expect(describeCopyError(errno('ENOSPC'), 'write-destination', paths)).toBe(
        'no space left on device writing /srv/b',
      );
      expect(describeCopyError(errno('EACCES'), 'read-source', paths)).toBe(
        'permission denied reading source file: /src/a',
      );
      expect(describeCopyError(errno('EACCES'), 'write-destination', paths)).toBe(
        'permission denied writing destination: /srv/b',
      );
      expect(describeCopyError(new Error('boom'), 'write-destination', paths)).toBe(
        'cannot copy /src/a to /srv/b: boom',
      );
    });
  });

  describe('abort', () => {
    it('rejects with ABORTED for an already aborted signal and writes nothing', async () => {
      const sourcePath = await writeSource('a.txt', 'x');
      const destinationPath = path.join(root, 'out', 'a.txt');
      const reason = new Error('stop');

      const copying = copyFileAtomic({
        sourcePath,
        destinationPath,
        signal: AbortSignal.abort(reason),
      });

      await expect(copying).rejects.toSatisfy(
        (error) => WorkspaceError.isInstance(error, 'ABORTED') && error.cause === reason,
      );
      await expect(stat(path.dirname(destinationPath))).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('stops a copy in progress and removes the temporary file', async () => {
      const sourcePath = await writeSource('huge.bin', Buffer.alloc(64 * 1024 * 1024, 7));
      const destinationPath = await writeSource('huge-copy.bin', 'previous');
      const controller = new AbortController();

      const copying = copyFileAtomic({ sourcePath, destinationPath, signal: controller.signal });
      let settled = false;
      const outcome = copying.then(
        () => 'resolved',
        (error: unknown) => error,
      );
      void outcome.finally(() => {
        settled = true;
      });
      // Abort as soon as the temporary file exists, i.e. mid-stream.
      while (!settled && (await tempFiles(root)).length === 0) await sleep(1);
      controller.abort();

      const error = await outcome;
      expect(WorkspaceError.isInstance(error, 'ABORTED')).toBe(true);
      expect(await tempFiles(root)).toEqual([]);
      expect(await readFile(destinationPath, 'utf8')).toBe('previous');
    });
  });
});

describe('findNonDirectoryAncestor', () => {
  it('finds the file that blocks a directory path', async () => {
    const file = await writeSource('file', 'x');
    expect(await findNonDirectoryAncestor(path.join(file, 'a', 'b'))).toBe(file);
  });

  it('returns undefined when the nearest existing ancestor is a directory', async () => {
    expect(await findNonDirectoryAncestor(path.join(root, 'a', 'b'))).toBeUndefined();
  });
});
