import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The commits of {@link makeHistoryRepository}, by what they did. */
export interface HistoryRepository {
  dir: string;
  /** Root: `a.txt`, `b.txt`, `old.txt`. */
  root: string;
  /** `a.txt` edited, `b.txt` deleted, `old.txt` renamed to `new.txt`. */
  edit: string;
  /** On branch `feature`: `f.txt` added. */
  feature: string;
  /** On `main`: `m.txt` added. */
  mainline: string;
  /** `main` merging `feature` (no fast-forward). */
  merge: string;
  /** HEAD: `long.txt` added, with a 2000-character subject. */
  long: string;
}

let clock = 0;

/** Runs git in `cwd` with a fixed identity and increasing dates (so the log order is fixed). */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  clock += 1;
  const date = `${1_700_000_000 + clock * 60} +0000`;
  const identity = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];
  const { stdout } = await execFileAsync('git', [...identity, ...args], {
    cwd,
    env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  });
  return stdout.trim();
}

async function commit(dir: string, message: string): Promise<string> {
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/** A repository at `dir` with several commits, a rename, a deletion and a merge. */
export async function makeHistoryRepository(dir: string): Promise<HistoryRepository> {
  await mkdir(dir, { recursive: true });
  await git(dir, 'init', '-q', '-b', 'main');
  const write = (name: string, text: string) => writeFile(path.join(dir, name), text);
  await write('a.txt', 'one\n');
  await write('b.txt', 'two\n');
  await write('old.txt', 'moved content\nline two\nline three\n');
  const root = await commit(dir, 'root');
  await write('a.txt', 'one\nedited\n');
  await rm(path.join(dir, 'b.txt'));
  await git(dir, 'mv', 'old.txt', 'new.txt');
  await write('new.txt', 'moved content\nline two\nline three\nline four\n');
  const edit = await commit(dir, 'edit, delete and rename');
  await git(dir, 'checkout', '-q', '-b', 'feature');
  await write('f.txt', 'feature\n');
  const feature = await commit(dir, 'feature');
  await git(dir, 'checkout', '-q', 'main');
  await write('m.txt', 'mainline\n');
  const mainline = await commit(dir, 'mainline');
  await git(dir, 'merge', '-q', '--no-ff', '-m', 'merge feature', 'feature');
  const merge = await git(dir, 'rev-parse', 'HEAD');
  await write('long.txt', 'long\n');
  const long = await commit(dir, 'x'.repeat(2000));
  return { dir, root, edit, feature, mainline, merge, long };
}
