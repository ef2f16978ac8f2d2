import {
  closeSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { startSymlinkFlipper } from '../testing/symlink-flipper.js';
import { locateFileForWrite } from './locate-file-for-write.js';
import { openDirectory } from './open-directory.js';
import { openRegularFile } from './open-regular-file.js';
import { PathWalker } from './path-walker.js';

/** The code and reason of a path error thrown by `action`. */
function refusal(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (!WorkspaceError.isInstance(error)) throw error;
    return `${error.code}:${String(error.details.reason)}`;
  }
  throw new Error('expected a refusal');
}

function readAll(walker: PathWalker, input: string): string {
  const { fd, stats } = openRegularFile(walker, input, 'path');
  try {
    const buffer = Buffer.alloc(stats.size);
    readSync(fd, buffer, 0, stats.size, 0);
    return buffer.toString();
  } finally {
    closeSync(fd);
  }
}

describe('PathWalker', () => {
  let base: string;
  let root: string;
  let outside: string;
  let walker: PathWalker;

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'path-walker-')));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'dir/sub'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(root, 'dir/file.txt'), 'inside');
    writeFileSync(path.join(outside, 'secret.txt'), 'SECRET');
    walker = PathWalker.open({ workingDir: root, confine: true });
  });
  afterEach(async () => {
    walker.close();
    await rm(base, { recursive: true, force: true });
  });

  it('opens files by relative and absolute paths and through links that stay inside', () => {
    symlinkSync('dir/file.txt', path.join(root, 'relative-link'));
    symlinkSync(path.join(root, 'dir'), path.join(root, 'absolute-link'));
    for (const input of [
      'dir/file.txt',
      './dir/sub/../file.txt',
      path.join(root, 'dir/file.txt'),
      'relative-link',
      'absolute-link/file.txt',
      'absolute-link/sub/../../dir/file.txt',
    ]) {
      expect(readAll(walker, input), input).toBe('inside');
    }
  });

  it('refuses every way out: .., absolute paths, absolute and relative links', () => {
    symlinkSync(outside, path.join(root, 'escape'));
    symlinkSync('../outside/secret.txt', path.join(root, 'dir-escape'));
    symlinkSync('../../outside', path.join(root, 'dir/up-escape'));
    for (const input of [
      '../outside/secret.txt',
      'dir/../../outside/secret.txt',
      path.join(outside, 'secret.txt'),
      '/etc/hostname',
      'escape/secret.txt',
      'dir-escape',
      'dir/up-escape/secret.txt',
    ]) {
      expect(
        refusal(() => readAll(walker, input)),
        input,
      ).toBe('FORBIDDEN:outside');
      expect(
        refusal(() => locateFileForWrite(walker, input, 'path')),
        input,
      ).toBe('FORBIDDEN:outside');
    }
    expect(refusal(() => openDirectory(walker, 'escape', 'cwd'))).toBe('FORBIDDEN:outside');
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET');
  });

  it('names what is wrong with a path', () => {
    symlinkSync('loop-b', path.join(root, 'loop-a'));
    symlinkSync('loop-a', path.join(root, 'loop-b'));
    expect(refusal(() => readAll(walker, 'missing.txt'))).toBe('NOT_FOUND:not-found');
    expect(refusal(() => readAll(walker, 'dir'))).toBe('INVALID_ARGUMENT:is-directory');
    expect(refusal(() => readAll(walker, 'dir/file.txt/x'))).toBe(
      'INVALID_ARGUMENT:parent-not-directory',
    );
    expect(refusal(() => readAll(walker, 'loop-a'))).toBe('INVALID_ARGUMENT:symlink-loop');
    expect(refusal(() => readAll(walker, `${'n'.repeat(300)}/x`))).toBe(
      'INVALID_ARGUMENT:name-too-long',
    );
    expect(refusal(() => readAll(walker, 'a\0b'))).toBe('INVALID_ARGUMENT:nul-byte');
    expect(refusal(() => locateFileForWrite(walker, 'dir/', 'path'))).toBe(
      'INVALID_ARGUMENT:is-directory',
    );
    expect(refusal(() => locateFileForWrite(walker, 'dir', 'path'))).toBe(
      'INVALID_ARGUMENT:is-directory',
    );
    expect(refusal(() => openDirectory(walker, 'dir/file.txt', 'cwd'))).toBe(
      'INVALID_ARGUMENT:not-directory',
    );
    expect(refusal(() => openDirectory(walker, 'dir/file.txt/below', 'cwd'))).toBe(
      'INVALID_ARGUMENT:parent-not-directory',
    );
  });

  it('refuses hard links when confined and reads them when not', () => {
    linkSync(path.join(outside, 'secret.txt'), path.join(root, 'hard'));
    expect(refusal(() => readAll(walker, 'hard'))).toBe('FORBIDDEN:hard-link');
    const open = PathWalker.open({ workingDir: root, confine: false });
    try {
      expect(readAll(open, 'hard')).toBe('SECRET');
    } finally {
      open.close();
    }
  });

  it('never replaces devices, FIFOs or sockets, and refuses to read them', () => {
    const open = PathWalker.open({ workingDir: root, confine: false });
    try {
      expect(refusal(() => locateFileForWrite(open, '/dev/null', 'path'))).toBe(
        'INVALID_ARGUMENT:not-regular-file',
      );
      expect(refusal(() => readAll(open, '/dev/null'))).toBe('INVALID_ARGUMENT:not-regular-file');
    } finally {
      open.close();
    }
  });

  it('creates missing parents for a write and follows a dangling link inside', () => {
    symlinkSync('made/later/target.txt', path.join(root, 'dangling'));
    const destination = locateFileForWrite(walker, 'dangling', 'path');
    try {
      expect(destination.name).toBe('target.txt');
      expect(destination.parent.realPath()).toBe(path.join(root, 'made/later'));
      expect(destination.mode).toBeUndefined();
    } finally {
      destination.parent.close();
    }
  });

  it('lets no flip of a link between inside and outside through (thousands of tries)', async () => {
    mkdirSync(path.join(root, 'real'));
    writeFileSync(path.join(root, 'real/secret.txt'), 'inside');
    const link = path.join(root, 'flip');
    const flipper = await startSymlinkFlipper(link, ['real', outside]);
    let escapes = 0;
    let refused = 0;
    let read = 0;
    try {
      for (let attempt = 0; attempt < 3000; attempt++) {
        try {
          const text = readAll(walker, 'flip/secret.txt');
          if (text === 'SECRET') escapes++;
          else read++;
        } catch (error) {
          if (!WorkspaceError.isInstance(error)) throw error;
          refused++;
        }
        try {
          const destination = locateFileForWrite(walker, 'flip/new.txt', 'path');
          if (!destination.parent.realPath().startsWith(`${root}/`)) escapes++;
          destination.parent.close();
        } catch (error) {
          if (!WorkspaceError.isInstance(error)) throw error;
        }
      }
    } finally {
      const flips = await flipper.stop();
      expect(flips, 'the link was flipped while the walks ran').toBeGreaterThan(100);
    }
    expect(escapes).toBe(0);
    expect(read, 'some walks went through the inside target').toBeGreaterThan(0);
    expect(refused, 'some walks met the outside target').toBeGreaterThan(0);
  });
});
