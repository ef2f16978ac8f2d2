import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/** What an `npm install` left in a project's `node_modules`. */
export interface InstalledPackages {
  /** Every package name found, at any depth (nested `node_modules` included), e.g. `@ai-sdk/openai`. */
  names: ReadonlySet<string>;
  /** Apparent size of the whole tree in bytes (files, folders and links, as `du -sb` counts). */
  bytes: number;
}

/** Walks `nodeModulesDir` once: the packages in it and the bytes it takes. */
export async function readInstalledPackages(nodeModulesDir: string): Promise<InstalledPackages> {
  const names = new Set<string>();
  await collectNames(nodeModulesDir, names);
  return { names, bytes: await treeBytes(nodeModulesDir) };
}

/**
 * The entries of `patterns` found in `installed`: a pattern is a package name or a scope with
 * `/*` (`@ai-sdk/*` matches every package of the scope).
 */
export function matchInstalled(
  installed: InstalledPackages,
  patterns: readonly string[],
): string[] {
  return patterns.filter((pattern) =>
    pattern.endsWith('/*')
      ? [...installed.names].some((name) => name.startsWith(pattern.slice(0, -1)))
      : installed.names.has(pattern),
  );
}

async function collectNames(nodeModulesDir: string, names: Set<string>): Promise<void> {
  const entries = await readdir(nodeModulesDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
    if (entry.name.startsWith('@')) {
      for (const scoped of await readdir(path.join(nodeModulesDir, entry.name))) {
        names.add(`${entry.name}/${scoped}`);
        await collectNames(path.join(nodeModulesDir, entry.name, scoped, 'node_modules'), names);
      }
    } else {
      names.add(entry.name);
      await collectNames(path.join(nodeModulesDir, entry.name, 'node_modules'), names);
    }
  }
}

async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += (await lstat(full)).size;
    if (entry.isDirectory()) total += await treeBytes(full);
  }
  return total;
}
