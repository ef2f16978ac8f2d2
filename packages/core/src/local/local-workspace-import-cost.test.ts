import { realpathSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CORE_PACKAGE_DIR, modulesLoadedBy } from '../test-support/modules-loaded-by.js';

const script = `
  const { LocalWorkspace } = await import('@agent-workspace/core');
  const result = await new LocalWorkspace({ workingDir: process.cwd() }).executeCommand('echo ran');
  console.log('stdout ' + result.stdout.trim());
`;

/** What `url` belongs to when it is a module the local path must not load. */
function heavyModuleOf(url: string): string | undefined {
  // The protocol's main entry holds every wire schema; its zod-free part is `/constants`.
  if (/\/protocol\/dist\/index\.js$/.test(url)) return '@agent-workspace/protocol (schemas)';
  return /\/node_modules\/(zod|undici|ws)\//.exec(url)?.[1];
}

describe('importing the built @agent-workspace/core for one LocalWorkspace command', () => {
  it('loads no zod, undici, ws or protocol schemas', async () => {
    const { urls, lines } = await modulesLoadedBy(script);
    expect(lines).toEqual(['stdout ran']);
    // The recorder saw the import itself, so an empty list below means something.
    const entry = pathToFileURL(realpathSync(path.join(CORE_PACKAGE_DIR, 'dist', 'index.js'))).href;
    expect(urls).toContain(entry);
    expect([...new Set(urls.map(heavyModuleOf).filter(Boolean))]).toEqual([]);
  });
});
