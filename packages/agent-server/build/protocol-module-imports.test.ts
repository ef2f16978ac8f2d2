import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ProtocolExport,
  protocolExports,
  rewriteProtocolImports,
} from './protocol-module-imports.js';

const protocolSrc = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@agent-workspace/protocol/package.json')),
  'src',
);

describe('protocolExports', () => {
  const exports = protocolExports(path.join(protocolSrc, 'index.ts'));

  it('finds the module that declares each value export, through nested re-exports', () => {
    expect(exports.get('bashCommandWireSchema')).toEqual({
      file: path.join(protocolSrc, 'models', 'bash-command.ts'),
      name: 'bashCommandWireSchema',
    });
    // Re-exported by the entry from constants.ts, which re-exports it from wire/.
    expect(exports.get('AGENT_SERVER_ROUTES')?.file).toBe(
      path.join(protocolSrc, 'wire', 'agent-server-routes.ts'),
    );
  });

  it('leaves out types', () => {
    expect(exports.has('InternalServerErrorBody')).toBe(false);
    expect(exports.has('internalServerErrorBody')).toBe(true);
    expect(exports.size).toBeGreaterThan(100);
  });
});

describe('rewriteProtocolImports', () => {
  const exports = new Map<string, ProtocolExport>([
    ['alpha', { file: '/p/src/a.ts', name: 'alpha' }],
    ['beta', { file: '/p/src/a.ts', name: 'beta' }],
    ['gamma', { file: '/p/src/b.ts', name: 'gammaInB' }],
  ]);

  it('imports each name from the module that declares it, keeping local names', () => {
    const source = `import { alpha, type Alpha, gamma as g,\n  beta } from '@agent-workspace/protocol';\nuse(alpha, beta, g);`;
    expect(rewriteProtocolImports(source, exports, 'x.ts')).toBe(
      `import { alpha, beta } from "/p/src/a.ts";\nimport { gammaInB as g } from "/p/src/b.ts";\nuse(alpha, beta, g);`,
    );
  });

  it('rewrites re-exports, drops type-only lists and keeps dynamic and type imports', () => {
    const source = [
      'export { gamma } from "@agent-workspace/protocol";',
      "import { type Alpha } from '@agent-workspace/protocol';",
      "import type { Beta } from '@agent-workspace/protocol';",
      "const lazy = () => import('@agent-workspace/protocol');",
    ].join('\n');
    expect(rewriteProtocolImports(source, exports, 'x.ts')).toBe(
      [
        'export { gammaInB as gamma } from "/p/src/b.ts";',
        '',
        "import type { Beta } from '@agent-workspace/protocol';",
        "const lazy = () => import('@agent-workspace/protocol');",
      ].join('\n'),
    );
  });

  it('refuses a name the entry does not export and imports it cannot rewrite', () => {
    expect(() =>
      rewriteProtocolImports("import { delta } from '@agent-workspace/protocol';", exports, 'x.ts'),
    ).toThrow('x.ts: delta is not a value export of @agent-workspace/protocol');
    for (const statement of [
      "import * as protocol from '@agent-workspace/protocol';",
      "import protocol, { alpha } from '@agent-workspace/protocol';",
      "export * from '@agent-workspace/protocol';",
    ]) {
      expect(() => rewriteProtocolImports(statement, exports, 'x.ts'), statement).toThrow(
        'cannot be rewritten',
      );
    }
  });
});
