import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerProject, createConsumerProject } from './test-support/consumer-project.js';
import {
  extractReadmeSnippets,
  NOT_STANDALONE_MARKER,
} from './test-support/extract-readme-snippets.js';
import { type LocalRegistry, startLocalRegistry } from './test-support/local-registry.js';
import { parseTscDiagnostics } from './test-support/parse-tsc-diagnostics.js';
import { type PublishedPackage, publishPackages } from './test-support/publish-packages.js';
import {
  type DependencyManifest,
  snippetDependencies,
} from './test-support/snippet-dependencies.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = path.resolve(packageDir, '../..');
const tsc = path.join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
/** A registry of its own: published-packages' may run at the same time in another worker. */
const storageDir = path.join(packageDir, 'node_modules', '.cache', 'readme-registry', 'storage');
/** How many snippets may be marked not standalone; each needs a reason beside it in its README. */
const NOT_STANDALONE_ALLOWED = 0;

const snippets = await extractReadmeSnippets({ repoDir });
const standalone = snippets.filter((snippet) => !snippet.notStandalone);
const readmes = [...new Set(standalone.map((snippet) => snippet.readme))];

/** Every public package of the workspace: each non-private package.json under packages/. */
async function publicPackages(): Promise<{ dir: string; manifest: DependencyManifest }[]> {
  const found = [];
  for (const folder of await readdir(path.join(repoDir, 'packages'))) {
    const dir = path.join(repoDir, 'packages', folder);
    const file = path.join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(await readFile(file, 'utf8'));
    if (manifest.private !== true) found.push({ dir, manifest });
  }
  return found;
}

describe('every ```ts snippet of every README, in one project with every public package', () => {
  let registry: LocalRegistry;
  let stagingDir: string;
  let published: PublishedPackage[];
  let expectedNames: string[];
  let project: ConsumerProject;
  /** tsc's diagnostics as `README.md:<line>:<column> <message>`, by snippet module. */
  const diagnostics = new Map<string, string[]>();
  /** tsc's output that names no snippet (a tsconfig or install problem). */
  let unplaced: string[] = [];

  beforeAll(async () => {
    const packages = await publicPackages();
    expectedNames = packages.map(({ manifest }) => manifest.name).sort();
    for (const { dir } of packages) {
      const dist = path.join(dir, 'dist');
      if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`pnpm build\` first`);
    }
    const manifests = packages.map(({ manifest }) => manifest);
    registry = await startLocalRegistry({ storageDir, scope: '@agent-workspace' });
    stagingDir = await mkdtemp(path.join(tmpdir(), 'agent-workspace-release-'));
    published = await publishPackages({ repoDir, stagingDir, registry });
    project = await createConsumerProject({
      registry,
      // One `npm install` of them all, as a user taking several packages would.
      spec: published.map(({ name, version }) => `${name}@${version}`),
      // What a consumer adds: @types/node (with `"types": ["node"]` below, as `tsc --init`'s
      // own comment says for Node) and the third-party packages the snippets import (zod, …).
      devDependencies: ['@types/node@^20.19.0', ...snippetDependencies({ snippets, manifests })],
    });

    // The defaults of this repository's TypeScript: strict, exactOptionalPropertyTypes,
    // noUncheckedIndexedAccess, module nodenext, verbatimModuleSyntax, moduleDetection force, …
    const init = await project.run('node', [tsc, '--init']);
    if (init.exitCode !== 0) throw new Error(`tsc --init failed:\n${init.all}`);
    await mkdir(path.join(project.dir, 'snippets'));
    for (const { moduleName, code } of standalone) {
      await writeFile(path.join(project.dir, 'snippets', moduleName), `${code}\n`);
    }
    await writeFile(
      path.join(project.dir, 'tsconfig.snippets.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { types: ['node'] },
        include: ['snippets/*.ts'],
      }),
    );
    const result = await project.run('node', [
      tsc,
      ...['-p', 'tsconfig.snippets.json', '--noEmit', '--pretty', 'false'],
    ]);
    const parsed = parseTscDiagnostics(result.all);
    unplaced = parsed.other;
    for (const { file, line, column, message } of parsed.diagnostics) {
      const snippet = standalone.find((s) => path.join('snippets', s.moduleName) === file);
      if (snippet === undefined) {
        unplaced.push(`${file}(${line},${column}): ${message}`);
        continue;
      }
      const place = `${snippet.readme}:${snippet.line + line - 1}:${column}`;
      diagnostics.set(snippet.moduleName, [
        ...(diagnostics.get(snippet.moduleName) ?? []),
        `${place} ${message}`,
      ]);
    }
    if (result.exitCode !== 0 && parsed.diagnostics.length === 0 && unplaced.length === 0) {
      unplaced.push(`tsc exited with ${result.exitCode}:\n${result.all}`);
    }
  }, 900_000);

  afterAll(async () => {
    await registry?.[Symbol.asyncDispose]();
    if (stagingDir) await rm(stagingDir, { recursive: true, force: true });
    if (project) await rm(project.dir, { recursive: true, force: true });
  });

  it('installs every public package under packages/ into the one project', () => {
    expect(published.map(({ name }) => name).sort()).toEqual(expectedNames);
    for (const name of expectedNames) {
      expect(existsSync(path.join(project.dir, 'node_modules', name, 'package.json')), name).toBe(
        true,
      );
    }
  });

  it(`finds the snippets, and at most ${NOT_STANDALONE_ALLOWED} marked ${NOT_STANDALONE_MARKER}`, () => {
    const marked = snippets.filter((s) => s.notStandalone).map((s) => `${s.readme}:${s.line}`);
    console.info(
      `README snippets: ${snippets.length} in ${new Set(snippets.map((s) => s.readme)).size} files, ` +
        `${marked.length} not standalone${marked.length > 0 ? `: ${marked.join(', ')}` : ''}`,
    );
    expect(standalone.length).toBeGreaterThan(0);
    expect(marked.length, marked.join('\n')).toBeLessThanOrEqual(NOT_STANDALONE_ALLOWED);
  });

  it('tsc reports nothing outside the snippets', () => {
    expect(unplaced).toEqual([]);
  });

  for (const readme of readmes) {
    describe(readme, () => {
      for (const { line, moduleName } of standalone.filter((s) => s.readme === readme)) {
        it(`the snippet at line ${line} typechecks`, () => {
          const found = diagnostics.get(moduleName) ?? [];
          expect(found, found.join('\n')).toEqual([]);
        });
      }
    });
  }
});
