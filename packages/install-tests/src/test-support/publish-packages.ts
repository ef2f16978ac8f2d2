import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import type { LocalRegistry } from './local-registry.js';

/** A public package of the workspace as it was published. */
export interface PublishedPackage {
  name: string;
  version: string;
  /** Its folder in the release copy, as published. */
  dir: string;
}

/** Options of {@link publishPackages}. */
export interface PublishPackagesOptions {
  /** The monorepo, built. */
  repoDir: string;
  /** An empty folder outside the repository for the release copy. */
  stagingDir: string;
  registry: LocalRegistry;
}

/** What a published package ships; the rest of its folder (tests' output, logs) stays behind. */
const SHIPPED = /^(?:package\.json|README\.md|Dockerfile|LICENSE|bin|dist|src)$/;
const TOKEN_ENV = 'LOCAL_REGISTRY_TOKEN';
const WORKSPACE_FILES = ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml', '.changeset'];

/**
 * Releases every public package to `registry` the way `pnpm release` does, on a copy of the
 * repository: the pending changesets plus one patch for every public package, versioned with
 * `changeset version --snapshot <content hash>`, then `changeset publish`. The same content gets
 * the same version, which `changeset publish` finds already published and skips.
 */
export async function publishPackages(
  options: PublishPackagesOptions,
): Promise<PublishedPackage[]> {
  const { repoDir, stagingDir, registry } = options;
  for (const file of WORKSPACE_FILES) {
    await cp(path.join(repoDir, file), path.join(stagingDir, file), { recursive: true });
  }
  const packages = await workspacePackages(repoDir);
  const hash = createHash('sha256');
  for (const { relativeDir, manifest } of packages) {
    const from = path.join(repoDir, relativeDir);
    const to = path.join(stagingDir, relativeDir);
    await mkdir(to, { recursive: true });
    if (manifest.private) {
      await cp(path.join(from, 'package.json'), path.join(to, 'package.json'));
      continue;
    }
    for (const entry of await readdir(from)) {
      if (SHIPPED.test(entry))
        await cp(path.join(from, entry), path.join(to, entry), { recursive: true });
    }
    await hashTree(hash, to);
  }
  const publicNames = packages.filter((p) => !p.manifest.private).map((p) => p.manifest.name);
  await writeFile(
    path.join(stagingDir, '.changeset', 'install-test-release.md'),
    `---\n${publicNames.map((name) => `'${name}': patch`).join('\n')}\n---\n\nInstall test release.\n`,
  );
  const configFile = path.join(stagingDir, '.changeset', 'config.json');
  const config = JSON.parse(await readFile(configFile, 'utf8'));
  config.snapshot = { useCalculatedVersion: true, prereleaseTemplate: '{tag}' };
  await writeFile(configFile, JSON.stringify(config));
  await writeFile(path.join(stagingDir, '.npmrc'), registry.publishNpmrc(TOKEN_ENV));

  const changeset = path.join(repoDir, 'node_modules', '@changesets', 'cli', 'bin.js');
  const tag = `install-${hash.digest('hex').slice(0, 12)}`;
  const run = { cwd: stagingDir, env: { [TOKEN_ENV]: registry.token }, all: true };
  await execa('node', [changeset, 'version', '--snapshot', tag], run);
  // pnpm publish turns `workspace:*` into the version it finds installed, as in a real checkout.
  await execa(
    'pnpm',
    ['install', '--offline', '--ignore-scripts', '--config.confirmModulesPurge=false'],
    run,
  );
  await execa('node', [changeset, 'publish', '--no-git-tag', '--tag', tag], run);

  const published: PublishedPackage[] = [];
  for (const { relativeDir, manifest } of packages) {
    if (manifest.private) continue;
    const dir = path.join(stagingDir, relativeDir);
    const { version } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
    published.push({ name: manifest.name, version, dir });
  }
  return published;
}

interface WorkspacePackage {
  relativeDir: string;
  manifest: { name: string; private?: boolean };
}

/** Every package of the pnpm workspace, from `pnpm ls`. */
async function workspacePackages(repoDir: string): Promise<WorkspacePackage[]> {
  const { stdout } = await execa('pnpm', ['ls', '-r', '--depth', '-1', '--json'], { cwd: repoDir });
  const entries = JSON.parse(stdout) as { path: string }[];
  const packages: WorkspacePackage[] = [];
  for (const entry of entries) {
    if (entry.path === repoDir) continue;
    const manifest = JSON.parse(await readFile(path.join(entry.path, 'package.json'), 'utf8'));
    packages.push({ relativeDir: path.relative(repoDir, entry.path), manifest });
  }
  return packages.sort((a, b) => a.relativeDir.localeCompare(b.relativeDir));
}

/** Feeds every file under `dir` (path and bytes, in a stable order) into `hash`. */
async function hashTree(hash: ReturnType<typeof createHash>, dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    hash
      .update(path.relative(dir, file))
      .update('\0')
      .update(await readFile(file));
  }
}
