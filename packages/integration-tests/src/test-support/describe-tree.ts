import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * One line per entry below `root`, sorted by name and depth first: `dir/ <mode>`,
 * `file <mode> <sha256 prefix>` or `link -> <target>`, so two trees compare as equal lists
 * (modes in octal, set-id and sticky bits included).
 */
export async function describeTree(root: string, prefix = ''): Promise<string[]> {
  const lines: string[] = [];
  for (const name of (await readdir(path.join(root, prefix))).sort()) {
    const relative = path.join(prefix, name);
    const full = path.join(root, relative);
    const stats = await lstat(full);
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isSymbolicLink()) lines.push(`${relative} -> ${await readlink(full)}`);
    else if (stats.isDirectory()) {
      lines.push(`${relative}/ ${mode}`);
      lines.push(...(await describeTree(root, relative)));
    } else {
      const hash = createHash('sha256')
        .update(await readFile(full))
        .digest('hex');
      lines.push(`${relative} ${mode} ${hash.slice(0, 12)}`);
    }
  }
  return lines;
}
