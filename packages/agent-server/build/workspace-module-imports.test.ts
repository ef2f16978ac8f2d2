import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  entryExports,
  type ModuleExport,
  rewriteWorkspaceImports,
  workspaceEntries,
} from './workspace-module-imports.js';

const packageDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const packagesDir = path.dirname(packageDir);

describe('workspaceEntries and entryExports', () => {
  const entries = workspaceEntries({ packageDir, packages: ['core', 'protocol'] });
  const exports = entryExports(entries);

  it("maps each export of the packages to its source entry, as the manifests' exports say", () => {
    expect(entries.get('@agent-workspace/protocol')).toBe(
      path.join(packagesDir, 'protocol', 'src', 'index.ts'),
    );
    expect(entries.get('@agent-workspace/protocol/constants')).toBe(
      path.join(packagesDir, 'protocol', 'src', 'constants.ts'),
    );
    expect(entries.get('@agent-workspace/core/internal')).toBe(
      path.join(packagesDir, 'core', 'src', 'internal.ts'),
    );
    expect(entries.has('@agent-workspace/protocol/package.json')).toBe(false);
  });

  it('finds the module that declares each value export, through nested re-exports', () => {
    const protocol = exports.get('@agent-workspace/protocol');
    expect(protocol?.get('bashCommandWireSchema')).toEqual({
      file: path.join(packagesDir, 'protocol', 'src', 'models', 'bash-command.ts'),
      name: 'bashCommandWireSchema',
    });
    // Re-exported by the entry from constants.ts, which re-exports it from wire/.
    expect(protocol?.get('AGENT_SERVER_ROUTES')?.file).toBe(
      path.join(packagesDir, 'protocol', 'src', 'wire', 'agent-server-routes.ts'),
    );
    expect(exports.get('@agent-workspace/core')?.get('LocalWorkspace')?.file).toMatch(
      /core[\\/]src[\\/]local[\\/]/,
    );
  });

  it('leaves out types', () => {
    const protocol = exports.get('@agent-workspace/protocol');
    expect(protocol?.has('InternalServerErrorBody')).toBe(false);
    expect(protocol?.has('internalServerErrorBody')).toBe(true);
  });
});

describe('rewriteWorkspaceImports', () => {
  const exports = new Map([
    [
      '@agent-workspace/protocol',
      new Map<string, ModuleExport>([
        ['alpha', { file: '/p/src/a.ts', name: 'alpha' }],
        ['beta', { file: '/p/src/a.ts', name: 'beta' }],
        ['gamma', { file: '/p/src/b.ts', name: 'gammaInB' }],
      ]),
    ],
  ]);

  it('imports each name from the module that declares it, keeping local names', () => {
    const source = `import { alpha, type Alpha, gamma as g,\n  beta } from '@agent-workspace/protocol';\nuse(alpha, beta, g);`;
    expect(rewriteWorkspaceImports(source, exports, 'x.ts')).toBe(
      `import { alpha, beta } from "/p/src/a.ts";\nimport { gammaInB as g } from "/p/src/b.ts";\nuse(alpha, beta, g);`,
    );
  });

  it('rewrites re-exports, drops type-only lists, keeps dynamic, type and other imports', () => {
    const source = [
      'export { gamma } from "@agent-workspace/protocol";',
      "import { type Alpha } from '@agent-workspace/protocol';",
      "import type { Beta } from '@agent-workspace/protocol';",
      "import { ui } from '@agent-workspace/ui';",
      "const lazy = () => import('@agent-workspace/protocol');",
    ].join('\n');
    expect(rewriteWorkspaceImports(source, exports, 'x.ts')).toBe(
      [
        'export { gammaInB as gamma } from "/p/src/b.ts";',
        '',
        "import type { Beta } from '@agent-workspace/protocol';",
        "import { ui } from '@agent-workspace/ui';",
        "const lazy = () => import('@agent-workspace/protocol');",
      ].join('\n'),
    );
  });

  it('refuses a name the entry does not export and imports it cannot rewrite', () => {
    expect(() =>
      rewriteWorkspaceImports(
        "import { delta } from '@agent-workspace/protocol';",
        exports,
        'x.ts',
      ),
    ).toThrow('x.ts: delta is not a value export of @agent-workspace/protocol');
    for (const statement of [
      "import * as protocol from '@agent-workspace/protocol';",
      "import protocol, { alpha } from '@agent-workspace/protocol';",
      "export * from '@agent-workspace/protocol';",
    ]) {
      expect(() => rewriteWorkspaceImports(statement, exports, 'x.ts'), statement).toThrow(
        'cannot be rewritten',
      );
    }
  });
});
