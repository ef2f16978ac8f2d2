import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

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

const script = `
  const { LocalWorkspace } = await import('@agent-workspace/core');
  const result = await new LocalWorkspace({ workingDir: process.cwd() }).executeCommand('echo ran');
  console.log('stdout ' + result.stdout.trim());
`;

/** Runs `script` in a fresh `node` in packages/core; lists every module URL it resolved. */
async function modulesLoadedByOneLocalCommand(): Promise<{ urls: string[]; stdout: string }> {
  const register = `import { register } from 'node:module'; register(${JSON.stringify(recordResolved)});`;
  const { stdout } = await run(
    process.execPath,
    ['--import', moduleUrl(register), '--input-type=module', '--eval', script],
    { cwd: packageDir },
  );
  const lines = stdout.trim().split('\n');
  return {
    urls: lines.filter((line) => line.startsWith('resolved ')).map((line) => line.slice(9)),
    stdout: lines.find((line) => line.startsWith('stdout ')) ?? '',
  };
}

/** What `url` belongs to when it is a module the local path must not load. */
function heavyModuleOf(url: string): string | undefined {
  // The protocol's main entry holds every wire schema; its zod-free part is `/constants`.
  if (/\/protocol\/dist\/index\.js$/.test(url)) return '@agent-workspace/protocol (schemas)';
  return /\/node_modules\/(zod|undici|ws)\//.exec(url)?.[1];
}

describe('importing the built @agent-workspace/core for one LocalWorkspace command', () => {
  it('loads no zod, undici, ws or protocol schemas', async () => {
    if (!existsSync(path.join(packageDir, 'dist', 'index.js'))) {
      throw new Error(
        'packages/core/dist is missing: run `pnpm --filter @agent-workspace/core build` first',
      );
    }
    const { urls, stdout } = await modulesLoadedByOneLocalCommand();
    expect(stdout).toBe('stdout ran');
    // The recorder saw the import itself, so an empty list below means something.
    const entry = pathToFileURL(realpathSync(path.join(packageDir, 'dist', 'index.js'))).href;
    expect(urls).toContain(entry);
    expect([...new Set(urls.map(heavyModuleOf).filter(Boolean))]).toEqual([]);
  });
});
