import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

// Identity for the commits tests make, through the environment only: the user's global git
// config is never read for it nor written.
process.env.GIT_AUTHOR_NAME = 'Test Author';
process.env.GIT_AUTHOR_EMAIL = 'author@example.test';
process.env.GIT_COMMITTER_NAME = 'Test Committer';
process.env.GIT_COMMITTER_EMAIL = 'committer@example.test';

/** Runs git in `cwd` and returns its trimmed stdout; a failure throws with stderr. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await execa('git', args, { cwd, reject: false });
  if (result.exitCode !== 0) {
    throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr}`);
  }
  return result.stdout.trim();
}

/** A scratch area: a project repository on `main` with one commit, and an empty managed root. */
export interface TestArea {
  base: string;
  project: string;
  root: string;
  cleanup(): Promise<void>;
}

/** Creates a {@link TestArea} under the system temp directory. */
export async function makeTestArea(label: string): Promise<TestArea> {
  const base = await mkdtemp(path.join(tmpdir(), `git-ws-${label}-`));
  const project = path.join(base, 'project');
  const root = path.join(base, 'root');
  await mkdir(project);
  await git(project, 'init', '-q', '-b', 'main');
  await writeFile(path.join(project, 'README.md'), '# project\n');
  await writeFile(path.join(project, '.gitignore'), 'node_modules/\n');
  await git(project, 'add', '-A');
  await git(project, 'commit', '-q', '-m', 'initial');
  return {
    base,
    project,
    root,
    cleanup: () => rm(base, { recursive: true, force: true, maxRetries: 3 }),
  };
}

/** A provision config of project `app` in `area` for `sessionId`, on `agent/<sessionId>` by default. */
export function testConfig(area: TestArea, sessionId: string, branch = `agent/${sessionId}`) {
  return {
    projectId: 'app',
    project: { path: area.project, defaultBranch: 'main' },
    sessionId,
    branch,
  };
}
