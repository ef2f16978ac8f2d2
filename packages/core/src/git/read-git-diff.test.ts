import { rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { decodeText, readGitDiff } from './read-git-diff.js';
import { commitAll, git, initRepository, put, TempDirs } from './test-support/test-repository.js';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

async function expectCode(promise: Promise<unknown>, code: string, field?: string) {
  const error = await rejectionOf(promise);
  expect(WorkspaceError.isInstance(error), String(error)).toBe(true);
  expect((error as WorkspaceError).code).toBe(code);
  if (field !== undefined) expect((error as WorkspaceError).details.field).toBe(field);
  return error as WorkspaceError;
}

/** A repository with one commit holding `files`. */
async function repository(files: Record<string, string>): Promise<string> {
  const repo = await initRepository(await temp.make());
  for (const [name, content] of Object.entries(files)) await put(repo, name, content);
  await commitAll(repo, 'base');
  return repo;
}

describe('readGitDiff', () => {
  it('returns exact contents of a modified file, trailing newline and CRLF included', async () => {
    const repo = await repository({ 'a.txt': 'one\r\ntwo\n\n' });
    await put(repo, 'a.txt', 'one\r\ntwo changed\n');
    expect(await readGitDiff({ path: path.join(repo, 'a.txt') })).toEqual({
      original: 'one\r\ntwo\n\n',
      modified: 'one\r\ntwo changed\n',
    });
  });

  it('gives an empty original for a new file and an empty modified for a deleted one', async () => {
    const repo = await repository({ 'gone.txt': 'was here\n', 'dir/sub/gone.txt': 'deep\n' });
    await put(repo, 'new.txt', 'brand new\n');
    await rm(path.join(repo, 'gone.txt'));
    await rm(path.join(repo, 'dir'), { recursive: true });
    expect(await readGitDiff({ path: path.join(repo, 'new.txt') })).toEqual({
      original: '',
      modified: 'brand new\n',
    });
    expect(await readGitDiff({ path: path.join(repo, 'gone.txt') })).toEqual({
      original: 'was here\n',
      modified: '',
    });
    expect(await readGitDiff({ path: path.join(repo, 'dir/sub/gone.txt') })).toEqual({
      original: 'deep\n',
      modified: '',
    });
  });

  it('diffs a moved file against the base content of its old path', async () => {
    const content = 'a file long enough to be recognised as a rename\nsecond line\n';
    const repo = await repository({ 'old/name.txt': content });
    await put(repo, 'sub/keep.txt', 'keep\n');
    await git(repo, 'mv', 'old/name.txt', 'sub/new name.txt');
    await put(repo, 'sub/new name.txt', `${content}third line\n`);
    await git(repo, 'add', 'sub/new name.txt');
    expect(await readGitDiff({ path: path.join(repo, 'sub/new name.txt') })).toEqual({
      original: content,
      modified: `${content}third line\n`,
    });
  });

  it('returns nulls outside any repository', async () => {
    const dir = await temp.make();
    await put(dir, 'plain.txt', 'plain\n');
    expect(await readGitDiff({ path: path.join(dir, 'plain.txt') })).toEqual({
      modified: null,
      original: null,
    });
  });

  it('uses the empty tree on an unborn branch', async () => {
    const repo = await initRepository(await temp.make());
    await put(repo, 'first.txt', 'first\n');
    expect(await readGitDiff({ path: path.join(repo, 'first.txt') })).toEqual({
      original: '',
      modified: 'first\n',
    });
  });

  it('handles tabs, newlines, quotes, spaces and non-ASCII in file and directory names', async () => {
    const names = ['dir with space/tab\there.txt', 'new\nline/quote"d.txt', 'naïve/ünï.txt'];
    const repo = await repository(Object.fromEntries(names.map((name) => [name, `${name} v1`])));
    for (const name of names) {
      await put(repo, name, `${name} v2`);
      expect(await readGitDiff({ path: path.join(repo, name) })).toEqual({
        original: `${name} v1`,
        modified: `${name} v2`,
      });
    }
  });

  it('uses the nearest repository for a file inside a nested one', async () => {
    const repo = await repository({ 'outer.txt': 'outer\n' });
    const nested = await initRepository(path.join(repo, 'nested'));
    await put(nested, 'inner.txt', 'inner v1\n');
    await commitAll(nested, 'inner');
    await put(nested, 'inner.txt', 'inner v2\n');
    expect(await readGitDiff({ path: path.join(nested, 'inner.txt') })).toEqual({
      original: 'inner v1\n',
      modified: 'inner v2\n',
    });
  });

  it('compares against an explicit ref or commit', async () => {
    const repo = await repository({ 'a.txt': 'v1\n' });
    const first = await git(repo, 'rev-parse', 'HEAD');
    await put(repo, 'a.txt', 'v2\n');
    await commitAll(repo, 'v2');
    await put(repo, 'a.txt', 'v3\n');
    const file = path.join(repo, 'a.txt');
    expect(await readGitDiff({ path: file })).toEqual({ original: 'v2\n', modified: 'v3\n' });
    expect(await readGitDiff({ path: file, ref: 'HEAD~1' })).toEqual({
      original: 'v1\n',
      modified: 'v3\n',
    });
    expect(await readGitDiff({ path: file, commit: first.slice(0, 7) })).toEqual({
      original: 'v1\n',
      modified: 'v3\n',
    });
    await expectCode(readGitDiff({ path: file, ref: 'no-such-ref' }), 'GIT_ERROR');
  });

  it('reads a symbolic link as its target, like git stores it', async () => {
    const repo = await initRepository(await temp.make());
    await symlink('target-v1.txt', path.join(repo, 'link'));
    await commitAll(repo, 'link');
    await rm(path.join(repo, 'link'));
    await symlink('target-v2.txt', path.join(repo, 'link'));
    expect(await readGitDiff({ path: path.join(repo, 'link') })).toEqual({
      original: 'target-v1.txt',
      modified: 'target-v2.txt',
    });
  });

  it('gives "" for binary or non-UTF-8 content and keeps a BOM', async () => {
    const repo = await repository({});
    await put(repo, 'binary.bin', new Uint8Array([0x89, 0x50, 0x00, 0x01]));
    await put(repo, 'latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    await put(repo, 'bom.txt', '\uFEFFhello');
    await commitAll(repo, 'files');
    await put(repo, 'binary.bin', new Uint8Array([0x89, 0x50, 0x00, 0x02]));
    await put(repo, 'latin1.txt', 'café');
    await put(repo, 'bom.txt', '\uFEFFhello\n');
    expect(await readGitDiff({ path: path.join(repo, 'binary.bin') })).toEqual({
      original: '',
      modified: '',
    });
    expect(await readGitDiff({ path: path.join(repo, 'latin1.txt') })).toEqual({
      original: '',
      modified: 'café',
    });
    expect(await readGitDiff({ path: path.join(repo, 'bom.txt') })).toEqual({
      original: '\uFEFFhello',
      modified: '\uFEFFhello\n',
    });
  });

  it('refuses a side larger than maxFileBytes', async () => {
    const repo = await repository({
      'small-then-big.txt': 'small',
      'big-then-small.txt': 'x'.repeat(20),
    });
    await put(repo, 'small-then-big.txt', 'y'.repeat(20));
    await put(repo, 'big-then-small.txt', 'small');
    for (const name of ['small-then-big.txt', 'big-then-small.txt']) {
      const error = await expectCode(
        readGitDiff({ path: path.join(repo, name), maxFileBytes: 10 }),
        'INVALID_ARGUMENT',
        'path',
      );
      expect(error.details.sizeBytes).toBe(20);
    }
    expect(
      await readGitDiff({ path: path.join(repo, 'big-then-small.txt'), maxFileBytes: 20 }),
    ).toEqual({ original: 'x'.repeat(20), modified: 'small' });
  });

  it('rejects bad input as INVALID_ARGUMENT naming the field', async () => {
    const repo = await repository({ 'a.txt': 'a\n', 'dir/b.txt': 'b\n' });
    const file = path.join(repo, 'a.txt');
    await execa('mkfifo', [path.join(repo, 'pipe')]);
    await expectCode(readGitDiff({ path: 'a.txt' }), 'INVALID_ARGUMENT', 'path');
    await expectCode(readGitDiff({ path: path.join(repo, 'dir') }), 'INVALID_ARGUMENT', 'path');
    await expectCode(readGitDiff({ path: path.join(repo, 'pipe') }), 'INVALID_ARGUMENT', 'path');
    await expectCode(readGitDiff({ path: path.join(repo, 'nope') }), 'INVALID_ARGUMENT', 'path');
    await expectCode(readGitDiff({ path: file, ref: 'HEAD', commit: 'abcd' }), 'INVALID_ARGUMENT');
    await expectCode(readGitDiff({ path: file, ref: '--all' }), 'INVALID_ARGUMENT', 'ref');
    await expectCode(readGitDiff({ path: file, commit: 'HEAD' }), 'INVALID_ARGUMENT', 'commit');
  });
});

describe('decodeText', () => {
  it('decodes UTF-8 and rejects NUL bytes and invalid sequences', () => {
    expect(decodeText(new TextEncoder().encode('naïve ✓'))).toBe('naïve ✓');
    expect(decodeText(new Uint8Array([0x61, 0x00, 0x62]))).toBe('');
    expect(decodeText(new Uint8Array([0xc3, 0x28]))).toBe('');
  });
});
