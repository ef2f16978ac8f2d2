// Test-only helpers for the colocated git tests (not exported by the package).
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

// Git for fixtures: no user or system config, a fixed identity, no hooks, no signing.
const fixtureEnv = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

/** Runs git for a fixture in `cwd` and returns its trimmed standard output. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await execa('git', ['-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: fixtureEnv,
  });
  return result.stdout.trim();
}

/** Writes `content` to `relative` under `root`, creating parent directories. */
export async function put(root: string, relative: string, content: string | Uint8Array) {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

/** Creates a repository at `dir` (made if needed) on branch `main`. */
export async function initRepository(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await git(dir, 'init', '--quiet');
  return dir;
}

/** Stages everything and commits; returns the new commit id. */
export async function commitAll(dir: string, message = 'commit'): Promise<string> {
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '--allow-empty', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** Temporary directories removed by {@link TempDirs.cleanup}. */
export class TempDirs {
  readonly #dirs: string[] = [];

  /** A new empty directory (real path, so it compares with what git prints). */
  async make(): Promise<string> {
    const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'git-test-')));
    this.#dirs.push(dir);
    return dir;
  }

  /** Removes every directory made so far. */
  async cleanup(): Promise<void> {
    await Promise.all(this.#dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
