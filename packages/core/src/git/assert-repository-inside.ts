import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '../errors/workspace-error.js';
import { type GitPlace, gitOutput } from './run-git.js';

/**
 * Throws `FORBIDDEN` (field `path`) unless the repository git finds from `place.cwd` lies wholly
 * inside `place.confineTo`: its work tree, its git directory (a `.git` *file* or link may point
 * anywhere), its common directory (worktrees) and every object alternate. Real paths are
 * compared, so links cannot dress an outside directory up as an inside one. Does nothing
 * without `confineTo`.
 */
export async function assertRepositoryInside(place: GitPlace): Promise<void> {
  const root = place.confineTo;
  if (root === undefined) return;
  const args = [
    'rev-parse',
    '--path-format=absolute',
    '--show-toplevel',
    '--absolute-git-dir',
    '--git-common-dir',
  ];
  const [workTree = '', gitDir = '', commonDir = ''] = (await gitOutput(args, place)).split('\n');
  const where: [string, string][] = [
    ['work tree', workTree],
    ['git directory', gitDir],
    ['common git directory', commonDir],
  ];
  for (const alternate of await alternatesOf(commonDir))
    where.push(['object alternate', alternate]);
  for (const [what, location] of where) {
    const real = await realpath(location).catch(() => location);
    if (real !== root && !real.startsWith(`${root}/`)) {
      throw new WorkspaceError({
        code: 'FORBIDDEN',
        message: `path is in a repository whose ${what} is outside the working directory: ${location}`,
        details: { field: 'path', reason: 'outside', [what]: location },
      });
    }
  }
}

/** Absolute paths listed in `<commonDir>/objects/info/alternates`. */
async function alternatesOf(commonDir: string): Promise<string[]> {
  const objects = path.join(commonDir, 'objects');
  const text = await readFile(path.join(objects, 'info/alternates'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => path.resolve(objects, line));
}
