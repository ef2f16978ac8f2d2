import path from 'node:path';
import { execa } from 'execa';

/**
 * The commit (`git rev-parse HEAD`) of the source tree `dir` belongs to, or `undefined` when
 * it is not in a git work tree or is an installed copy under `node_modules`.
 */
export async function readGitRevision(dir: string): Promise<string | undefined> {
  if (dir.split(path.sep).includes('node_modules')) return undefined;
  const result = await execa('git', ['rev-parse', 'HEAD'], { cwd: dir, reject: false });
  return result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(result.stdout)
    ? result.stdout
    : undefined;
}
