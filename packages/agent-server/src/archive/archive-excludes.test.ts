import { WORKSPACE_ARCHIVE_DEFAULT_EXCLUDES } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { compileArchiveExcludes, isGitSecret } from './archive-excludes.js';

describe('compileArchiveExcludes', () => {
  it('matches a bare name at any depth and a rooted pattern only from the root', () => {
    const excluded = compileArchiveExcludes(['*.bin', 'secrets/prod', '*/secret.txt']);
    expect(excluded('deep/down/x.bin', false)).toBe(true);
    expect(excluded('secrets/prod', true)).toBe(true);
    expect(excluded('secrets/prod/key', false)).toBe(true);
    expect(excluded('other/secrets/prod', true)).toBe(false);
    expect(excluded('a/secret.txt', false)).toBe(true);
    expect(excluded('a/b/secret.txt', false)).toBe(false);
    expect(excluded('keep.txt', false)).toBe(false);
  });

  it('keeps a file named like a directory-only pattern', () => {
    const excluded = compileArchiveExcludes(WORKSPACE_ARCHIVE_DEFAULT_EXCLUDES);
    expect(excluded('build', false)).toBe(false);
    expect(excluded('build', true)).toBe(true);
    expect(excluded('sub/build/out.o', false)).toBe(true);
    expect(excluded('.git', true)).toBe(true);
    expect(excluded('lib/mod.pyc', false)).toBe(true);
  });

  it('treats braces, extglobs and a leading ! literally, like fnmatch', () => {
    const excluded = compileArchiveExcludes(['{a,b}', '!x', '+(a)', '[!k]eep']);
    expect(excluded('a', false)).toBe(false);
    expect(excluded('{a,b}', false)).toBe(true);
    expect(excluded('y', false)).toBe(false);
    expect(excluded('!x', false)).toBe(true);
    expect(excluded('+(a)', false)).toBe(true);
    expect(excluded('deep', false)).toBe(true);
    expect(excluded('keep', false)).toBe(false);
  });
});

describe('isGitSecret', () => {
  it('names credential files and reflogs inside any .git directory', () => {
    expect(isGitSecret('.git/config')).toBe(true);
    expect(isGitSecret('sub/.git/FETCH_HEAD')).toBe(true);
    expect(isGitSecret('.git/modules/lib/config')).toBe(true);
    expect(isGitSecret('.git/logs/refs/heads/main')).toBe(true);
    expect(isGitSecret('.git/logs')).toBe(true);
    expect(isGitSecret('.git')).toBe(false);
    expect(isGitSecret('.git/HEAD')).toBe(false);
    expect(isGitSecret('config')).toBe(false);
    expect(isGitSecret('logs/app.log')).toBe(false);
  });
});
