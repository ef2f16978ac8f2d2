import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Options } from 'tsup';
import ts from 'typescript';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/** Where a value export of protocol's entry is declared. */
export interface ProtocolExport {
  /** The declaring module, absolute. */
  file: string;
  /** Its name there (an entry may export it under another). */
  name: string;
}

/** The bare specifier of protocol's entry, whose imports are rewritten. */
const PROTOCOL = '@agent-workspace/protocol';

/** A static `import { ... } from` or `export { ... } from` protocol's entry. */
const NAMED_IMPORT =
  /\b(import|export)\s*\{([^}]*)\}\s*from\s*(["'])@agent-workspace\/protocol\3;?/g;

/** Any static import or re-export of protocol's entry that is not type-only. */
const STATIC_IMPORT =
  /(?:^|[;\n}])\s*(?:import|export)\s+(?!type\b)[^;'"]*?\bfrom\s*["']@agent-workspace\/protocol["']/;

/**
 * The value exports of the module `entry` (protocol's `src/index.ts`), by exported name, with the
 * module that declares each (re-exports followed), read with the TypeScript compiler.
 */
export function protocolExports(entry: string): Map<string, ProtocolExport> {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${entry}: not a module`);
  const exports = new Map<string, ProtocolExport>();
  for (const exported of checker.getExportsOfModule(module)) {
    let symbol = exported;
    while (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol.declarations?.[0];
    if (!(symbol.flags & ts.SymbolFlags.Value) || !declaration) continue;
    exports.set(exported.name, { file: declaration.getSourceFile().fileName, name: symbol.name });
  }
  return exports;
}

/**
 * `source` with each static `import { ... }` / `export { ... }` from protocol's entry replaced by
 * one from each module that declares the names (type-only names dropped). Throws when a name is
 * not a value export of the entry, or a static import of the entry is left that this cannot
 * rewrite (`import * as`, a default import). Dynamic `import()` of the entry stays.
 */
export function rewriteProtocolImports(
  source: string,
  exports: ReadonlyMap<string, ProtocolExport>,
  file: string,
): string {
  const rewritten = source.replace(NAMED_IMPORT, (_statement, keyword: string, list: string) => {
    const byModule = new Map<string, string[]>();
    for (const item of list.split(',')) {
      const specifier = item.trim();
      if (specifier === '' || specifier.startsWith('type ')) continue;
      const [imported = '', local] = specifier.split(/\s+as\s+/);
      const declared = exports.get(imported);
      if (!declared) throw new Error(`${file}: ${imported} is not a value export of ${PROTOCOL}`);
      const alias = local ?? imported;
      const names = byModule.get(declared.file) ?? [];
      names.push(declared.name === alias ? alias : `${declared.name} as ${alias}`);
      byModule.set(declared.file, names);
    }
    return [...byModule]
      .map(
        ([module, names]) => `${keyword} { ${names.join(', ')} } from ${JSON.stringify(module)};`,
      )
      .join('\n');
  });
  if (STATIC_IMPORT.test(rewritten)) {
    throw new Error(`${file}: an import of ${PROTOCOL} that names no bindings cannot be rewritten`);
  }
  return rewritten;
}

/**
 * Bundles protocol from its modules rather than its built entry, and makes every static import
 * of the entry (by the agent-server and the workspace packages it bundles) an import of the
 * modules that declare the names. esbuild runs a module it reaches through `import()` (the
 * lazy route groups) only when that runs, but an import of the whole entry runs all of it: so
 * the schemas only a lazy group needs (conversations, their events and requests, the wire
 * models of the OpenAPI document) are built on its first request, not at every start.
 */
export function protocolModuleImports(): EsbuildPlugin {
  const protocolDir = path.dirname(
    createRequire(import.meta.url).resolve(`${PROTOCOL}/package.json`),
  );
  const entry = path.join(protocolDir, 'src', 'index.ts');
  const constants = path.join(protocolDir, 'src', 'constants.ts');
  return {
    name: 'protocol-module-imports',
    setup(build) {
      const exports = protocolExports(entry);
      build.onResolve({ filter: /^@agent-workspace\/protocol(\/constants)?$/ }, (args) => ({
        path: args.path === PROTOCOL ? entry : constants,
      }));
      // The workspace packages' own code, built or not: not protocol's, nor node_modules'.
      build.onLoad(
        { filter: /[\\/]packages[\\/][^\\/]+[\\/](src|dist)[\\/].*\.[jt]s$/ },
        async (args) => {
          if (args.path.startsWith(protocolDir + path.sep)) return undefined;
          if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
          const source = await readFile(args.path, 'utf8');
          if (!source.includes(PROTOCOL)) return undefined;
          return {
            contents: rewriteProtocolImports(source, exports, args.path),
            loader: args.path.endsWith('.ts') ? 'ts' : 'js',
            resolveDir: path.dirname(args.path),
          };
        },
      );
    },
  };
}
