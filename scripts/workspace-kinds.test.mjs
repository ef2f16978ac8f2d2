import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from './generate-biome-layers.mjs';

/** Every `kind: '…'` registered with registerWorkspaceType outside core, with its package. */
function registeredKinds() {
  const found = [];
  const packages = join(REPO_ROOT, 'packages');
  for (const name of readdirSync(packages)) {
    if (name === 'core') continue;
    const src = join(packages, name, 'src');
    let files;
    try {
      files = readdirSync(src, { recursive: true });
    } catch {
      continue;
    }
    for (const file of files.filter((path) => /register-.*\.ts$/.test(path))) {
      if (file.endsWith('.test.ts') || file.includes('test-support')) continue;
      const text = readFileSync(join(src, file), 'utf8');
      for (const call of text.matchAll(/registerWorkspaceType\(\{\s*kind: '([a-z-]+)'/g)) {
        found.push({
          kind: call[1],
          packageName: `@agent-workspace/${name}`,
          file: relative(REPO_ROOT, join(src, file)),
        });
      }
    }
  }
  return found;
}

it("names every kind a package registers in core's unknown-kind hint, with that package", () => {
  const hint = readFileSync(
    join(REPO_ROOT, 'packages/core/src/factory/unknown-workspace-kind-message.ts'),
    'utf8',
  );
  const rows = [...hint.matchAll(/kind: '([a-z-]+)',\s*packageName: '([^']+)'/g)].map((row) => ({
    kind: row[1],
    packageName: row[2],
  }));
  const registered = registeredKinds().map(({ kind, packageName }) => ({ kind, packageName }));
  expect(registered.length).toBeGreaterThanOrEqual(4);
  expect(rows).toEqual(expect.arrayContaining(registered));
  expect(registered).toEqual(expect.arrayContaining(rows));
});
