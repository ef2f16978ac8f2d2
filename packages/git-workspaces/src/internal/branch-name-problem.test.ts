import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { branchNameProblem } from './branch-name-problem.js';

const run = promisify(execFile);

/** True when git itself accepts `name` as a branch name. */
async function gitAccepts(name: string): Promise<boolean> {
  try {
    await run('git', ['check-ref-format', '--branch', name], { cwd: tmpdir() });
    return true;
  } catch {
    return false;
  }
}

const names = [
  'main',
  'agent/fix-1',
  'a/HEAD',
  'x.lock.y',
  'a{b}',
  'a@b',
  'é/ü',
  'feature/a.b',
  'a.lock',
  'a/b.lock/c',
  'a/.b',
  '.a',
  'a..b',
  'a.',
  'a b',
  'a\tb',
  'a\u007fb',
  'a~b',
  'a^',
  'a:b',
  'a?b',
  'a*b',
  'a[b',
  'a\\b',
  'a@{b',
  'a/',
  '/a',
  'a//b',
  '-a',
  'HEAD',
];

describe('branchNameProblem', () => {
  it.each(names)('agrees with git check-ref-format --branch on %j', async (name) => {
    expect(branchNameProblem(name) === undefined).toBe(await gitAccepts(name));
  });

  it('also refuses what git would read as a shorthand or an option', () => {
    expect(branchNameProblem('@')).toMatch(/"-" or "@"/);
    expect(branchNameProblem('@{-1}')).toMatch(/"-" or "@"/);
    expect(branchNameProblem('--force')).toMatch(/"-" or "@"/);
    expect(branchNameProblem('')).toMatch(/empty/);
  });

  it('names the offending character', () => {
    expect(branchNameProblem('a:b')).toContain('":"');
  });
});
