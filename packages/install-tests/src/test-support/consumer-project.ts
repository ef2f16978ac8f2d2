import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa, type Result } from 'execa';
import { type InstalledPackages, readInstalledPackages } from './installed-packages.js';
import type { LocalRegistry } from './local-registry.js';

/** Options of {@link createConsumerProject}. */
export interface ConsumerProjectOptions {
  registry: LocalRegistry;
  /** `name@version` of the package to install, or of several installed by one `npm install`. */
  spec: string | readonly string[];
  /** What a TypeScript user adds beside it; none by default. */
  devDependencies?: readonly string[];
  /** Where the project's folder is made; the system temp folder by default. */
  parentDir?: string;
}

/** A fresh npm project outside the repository that installed one of our packages. */
export interface ConsumerProject {
  readonly dir: string;
  /** `node_modules` right after the package's own install, before the dev dependencies. */
  readonly installed: InstalledPackages;
  /** Copies `file` into the project as `name`. */
  add(file: string, name: string): Promise<void>;
  /** Runs `command` in the project; the result holds stdout and stderr interleaved in `all`. */
  run(command: string, args: string[]): Promise<Result<{ all: true; reject: false }>>;
}

/**
 * Creates a project in `parentDir` whose `.npmrc` points only our scope at the local
 * registry, then `npm install`s the package alone, as a user would (and notes what that
 * installed), then the dev dependencies.
 */
export async function createConsumerProject(
  options: ConsumerProjectOptions,
): Promise<ConsumerProject> {
  const { registry, spec, devDependencies = [], parentDir = tmpdir() } = options;
  const dir = await mkdtemp(path.join(parentDir, 'agent-workspace-consumer-'));
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await writeFile(path.join(dir, '.npmrc'), registry.scopeNpmrc);
  const quiet = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
  await execa('npm', ['install', ...quiet, ...[spec].flat()], { cwd: dir, all: true });
  const installed = await readInstalledPackages(path.join(dir, 'node_modules'));
  if (devDependencies.length > 0) {
    await execa('npm', ['install', ...quiet, '--save-dev', ...devDependencies], {
      cwd: dir,
      all: true,
    });
  }
  return {
    dir,
    installed,
    add: (file, name) => copyFile(file, path.join(dir, name)),
    // Without NODE_PATH: pnpm's scripts set one that reaches every package of the workspace,
    // which would let the project load what it did not install.
    run: (command, args) =>
      execa(command, args, { cwd: dir, all: true, reject: false, env: { NODE_PATH: '' } }),
  };
}
