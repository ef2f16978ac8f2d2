import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Options } from 'tsup';
import ts from 'typescript';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/** Where a value export of an entry is declared. */
export interface ModuleExport {
  /** The declaring module, absolute. */
  file: string;
  /** Its name there (an entry may export it under another). */
  name: string;
}

/** The value exports of each entry, by specifier (`@agent-workspace/core/internal`). */
export type EntryExports = ReadonlyMap<string, ReadonlyMap<string, ModuleExport>>;

/** A static `import { ... } from` or `export { ... } from` a workspace package. */
const NAMED_IMPORT =
  /\b(import|export)\s*\{([^}]*)\}\s*from\s*(["'])(@agent-workspace\/[^"']+)\3;?/g;

/** Any static import or re-export of a workspace package that is not type-only. */
const STATIC_IMPORT =
  /(?:^|[;\n}])\s*(?:import|export)\s+(?!type\b)[^;'"]*?\bfrom\s*["'](@agent-workspace\/[^"']+)["']/g;

/** Options of {@link workspaceModuleImports} and {@link workspaceEntries}. */
export interface WorkspaceModuleImportsOptions {
  /** The folder of the package that bundles them; the workspace's packages are its siblings. */
  packageDir: string;
  /** The workspace packages bundled from their sources: `core`, `protocol`, ... */
  packages: readonly string[];
}

/**
 * The source entry of each export of the workspace `packages`, by specifier, as `packageDir`
 * resolves them: `./dist/<entry>.js` in a package's `exports` is `src/<entry>.ts`.
 */
export function workspaceEntries({
  packageDir,
  packages,
}: WorkspaceModuleImportsOptions): Map<string, string> {
  const require = createRequire(path.join(packageDir, 'package.json'));
  const entries = new Map<string, string>();
  for (const name of packages) {
    const manifestPath = require.resolve(`@agent-workspace/${name}/package.json`);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      exports: Record<string, string | { import?: string; default?: string }>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (subpath === './package.json') continue;
      const built = typeof target === 'string' ? target : (target.import ?? target.default ?? '');
      const match = /^\.\/dist\/(.+)\.js$/.exec(built);
      const entry = match && path.join(path.dirname(manifestPath), 'src', `${match[1]}.ts`);
      if (!entry || !existsSync(entry)) {
        throw new Error(`@agent-workspace/${name}: no source entry for ${subpath} (${built})`);
      }
      entries.set(`@agent-workspace/${name}${subpath.slice(1)}`, entry);
    }
  }
  return entries;
}

/**
 * The value exports of each entry (by specifier, see {@link workspaceEntries}), with the module
 * that declares each (re-exports followed), read with the TypeScript compiler.
 */
export function entryExports(entries: ReadonlyMap<string, string>): EntryExports {
  const program = ts.createProgram([...entries.values()], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const bySpecifier = new Map<string, Map<string, ModuleExport>>();
  for (const [specifier, entry] of entries) {
    const source = program.getSourceFile(entry);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entry}: not a module`);
    const exports = new Map<string, ModuleExport>();
    for (const exported of checker.getExportsOfModule(module)) {
      let symbol = exported;
      while (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const declaration = symbol.declarations?.[0];
      if (!(symbol.flags & ts.SymbolFlags.Value) || !declaration) continue;
      exports.set(exported.name, { file: declaration.getSourceFile().fileName, name: symbol.name });
    }
    bySpecifier.set(specifier, exports);
  }
  return bySpecifier;
}

/**
 * `source` with each static `import { ... }` / `export { ... }` from an entry of `exports` replaced
 * by one from each module that declares the names (type-only names dropped). Throws when a name
 * is not a value export of its entry, or a static import of an entry is left that this cannot
 * rewrite (`import * as`, a default import). Dynamic `import()` of an entry stays.
 */
export function rewriteWorkspaceImports(
  source: string,
  exports: EntryExports,
  file: string,
): string {
  const rewritten = source.replace(
    NAMED_IMPORT,
    (statement, keyword: string, list: string, _quote: string, specifier: string) => {
      const entry = exports.get(specifier);
      if (!entry) return statement;
      const byModule = new Map<string, string[]>();
      for (const item of list.split(',')) {
        const binding = item.trim();
        if (binding === '' || binding.startsWith('type ')) continue;
        const [imported = '', local] = binding.split(/\s+as\s+/);
        const declared = entry.get(imported);
        if (!declared)
          throw new Error(`${file}: ${imported} is not a value export of ${specifier}`);
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
    },
  );
  for (const [, specifier = ''] of rewritten.matchAll(STATIC_IMPORT)) {
    if (exports.has(specifier)) {
      throw new Error(
        `${file}: an import of ${specifier} that names no bindings cannot be rewritten`,
      );
    }
  }
  return rewritten;
}

/**
 * Bundles the workspace `packages` from their sources, module by module: every static import of
 * one of their entries, by any workspace package's code the bundle takes in (built or not),
 * becomes an import of the modules that declare the names. esbuild runs a module it reaches
 * through `import()` (the lazy route groups) only when that runs, but an import of a whole entry
 * runs every module behind it: so what only lazy code needs is not run at every start.
 */
export function workspaceModuleImports(options: WorkspaceModuleImportsOptions): EsbuildPlugin {
  const entries = workspaceEntries(options);
  // Specifiers are `@agent-workspace/<name>[/<entry>]`: nothing in them to escape.
  const specifiers = new RegExp(`^(${[...entries.keys()].join('|')})$`);
  // The workspace's packages are this one's siblings.
  const packagesDir = path.dirname(path.resolve(options.packageDir)) + path.sep;
  return {
    name: 'workspace-module-imports',
    setup(build) {
      const exports = entryExports(entries);
      build.onResolve({ filter: specifiers }, (args) => ({ path: entries.get(args.path)! }));
      build.onLoad({ filter: /\.[jt]s$/ }, async (args) => {
        if (!isWorkspaceCode(args.path, packagesDir)) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('@agent-workspace/')) return undefined;
        return {
          contents: rewriteWorkspaceImports(source, exports, args.path),
          loader: args.path.endsWith('.ts') ? 'ts' : 'js',
          resolveDir: path.dirname(args.path),
        };
      });
    },
  };
}

/** True for a file of a workspace package's `src` or `dist` (not of its `node_modules`). */
function isWorkspaceCode(file: string, packagesDir: string): boolean {
  if (!file.startsWith(packagesDir)) return false;
  const folder = file.slice(packagesDir.length).split(path.sep)[1];
  return folder === 'src' || folder === 'dist';
}
