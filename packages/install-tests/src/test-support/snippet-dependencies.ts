import { isBuiltin } from 'node:module';
import type { ReadmeSnippet } from './extract-readme-snippets.js';

/** The dependency fields of a public package's manifest this module reads. */
export interface DependencyManifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** Options of {@link snippetDependencies}. */
export interface SnippetDependenciesOptions {
  snippets: readonly ReadmeSnippet[];
  /** The public packages' manifests: the snippets' own imports of them need nothing more. */
  manifests: readonly DependencyManifest[];
}

/**
 * `name@range` of every third-party package the snippets import (`zod`, `vitest`, …), which a
 * consumer installs beside ours, at the range the public package that uses it declares. An
 * import no public package declares is an error: the README would name something we never use.
 */
export function snippetDependencies(options: SnippetDependenciesOptions): string[] {
  const { snippets, manifests } = options;
  const ours = new Set(manifests.map((m) => m.name));
  const specs = new Map<string, string>();
  for (const { readme, line, code } of snippets) {
    for (const [, specifier = ''] of code.matchAll(/(?:\bfrom|\bimport\(?)\s*['"]([^'"]+)['"]/g)) {
      if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
      const name = specifier.split('/', specifier.startsWith('@') ? 2 : 1).join('/');
      if (ours.has(name) || specs.has(name)) continue;
      const range = manifests
        .map((m) => m.dependencies?.[name] ?? m.peerDependencies?.[name])
        .find((r) => r !== undefined);
      if (range === undefined) {
        throw new Error(`${readme}:${line}: imports ${name}, which no public package depends on`);
      }
      specs.set(name, `${name}@${range}`);
    }
  }
  return [...specs.values()].sort();
}
