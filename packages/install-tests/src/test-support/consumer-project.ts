import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa, type Result } from 'execa';
import type { LocalRegistry } from './local-registry.js';

/** Options of {@link createConsumerProject}. */
export interface ConsumerProjectOptions {
  registry: LocalRegistry;
  /** `name@version` of the one package to install. */
  spec: string;
  /** What a TypeScript user adds beside it. */
  devDependencies: string[];
}

/** A fresh npm project outside the repository that installed one of our packages. */
export interface ConsumerProject {
  readonly dir: string;
  /** Copies `file` into the project as `name`. */
  add(file: string, name: string): Promise<void>;
  /** Runs `command` in the project; the result holds stdout and stderr interleaved in `all`. */
  run(command: string, args: string[]): Promise<Result<{ all: true; reject: false }>>;
}

/**
 * Creates a project in the system temp folder whose `.npmrc` points only our scope at the local
 * registry, then `npm install`s the package alone, as a user would.
 */
export async function createConsumerProject(
  options: ConsumerProjectOptions,
): Promise<ConsumerProject> {
  const { registry, spec, devDependencies } = options;
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-workspace-consumer-'));
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await writeFile(path.join(dir, '.npmrc'), registry.scopeNpmrc);
  const quiet = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
  await execa('npm', ['install', ...quiet, spec], { cwd: dir, all: true });
  await execa('npm', ['install', ...quiet, '--save-dev', ...devDependencies], {
    cwd: dir,
    all: true,
  });
  return {
    dir,
    add: (file, name) => copyFile(file, path.join(dir, name)),
    run: (command, args) => execa(command, args, { cwd: dir, all: true, reject: false }),
  };
}
