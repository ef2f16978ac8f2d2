import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** packages/core, where a script's `import('@agent-workspace/core')` finds the built `dist`. */
export const CORE_PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A data: URL of an ES module. */
function moduleUrl(source: string): string {
  return `data:text/javascript,${encodeURIComponent(source)}`;
}

// Runs on the loader thread; the synchronous write lands before the module is loaded.
const recordResolved = moduleUrl(`
  import { writeSync } from 'node:fs';
  export async function resolve(specifier, context, nextResolve) {
    const resolved = await nextResolve(specifier, context);
    writeSync(1, 'resolved ' + resolved.url + '\\n');
    return resolved;
  }
`);

/** What {@link modulesLoadedBy} saw. */
export interface LoadedModules {
  /** Every module URL the script resolved, in order. */
  urls: string[];
  /** The script's other output lines. */
  lines: string[];
}

/**
 * Runs the ES module `script` (with `args` as `process.argv.slice(1)`) in a fresh `node` in
 * packages/core, recording every module URL it resolves. Throws when core's `dist` is missing:
 * the script imports the built package.
 */
export async function modulesLoadedBy(script: string, args: string[] = []): Promise<LoadedModules> {
  if (!existsSync(path.join(CORE_PACKAGE_DIR, 'dist', 'index.js'))) {
    throw new Error(
      'packages/core/dist is missing: run `pnpm --filter @agent-workspace/core build` first',
    );
  }
  const register = `import { register } from 'node:module'; register(${JSON.stringify(recordResolved)});`;
  const { stdout } = await run(
    process.execPath,
    ['--import', moduleUrl(register), '--input-type=module', '--eval', script, ...args],
    { cwd: CORE_PACKAGE_DIR },
  );
  const lines = stdout.trim().split('\n');
  return {
    urls: lines.filter((line) => line.startsWith('resolved ')).map((line) => line.slice(9)),
    lines: lines.filter((line) => !line.startsWith('resolved ')),
  };
}
