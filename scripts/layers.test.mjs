import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  biomeRules,
  docsWithTables,
  generateLayers,
  placementProblems,
  REPO_ROOT,
  readLayers,
} from './generate-biome-layers.mjs';

const table = readLayers();

describe('scripts/layers.json, the one table of import rules', () => {
  it('places every folder under packages/*/src/ in a layer', () => {
    expect(placementProblems(table)).toEqual([]);
  });

  it('is what biome.json and docs/architecture.md say (run `pnpm layers:generate` after an edit)', () => {
    expect(generateLayers({ write: false })).toEqual([]);
  });

  it('names only folders of its own package in a row', () => {
    for (const pkg of table.packages) {
      const folders = pkg.layers.flatMap((row) => row.folders);
      expect(new Set(folders).size, pkg.name).toBe(folders.length);
      for (const row of pkg.layers) {
        for (const name of row.may.filter((may) => may !== '*')) {
          expect(folders, `${pkg.name}: ${row.folders.join(', ')} may import ${name}`).toContain(
            name,
          );
        }
      }
    }
  });

  it('allows no runtime dependency the table forbids (peers and dev dependencies aside)', () => {
    for (const pkg of table.packages.filter((row) => !row.imports.includes('*'))) {
      const manifest = JSON.parse(
        readFileSync(join(REPO_ROOT, 'packages', pkg.name, 'package.json'), 'utf8'),
      );
      const ours = Object.keys(manifest.dependencies ?? {})
        .filter((name) => name.startsWith('@agent-workspace/'))
        .map((name) => name.slice('@agent-workspace/'.length));
      const allowed = pkg.imports.map((spec) => spec.split('/')[0]);
      expect(
        ours.filter((name) => !allowed.includes(name)),
        pkg.name,
      ).toEqual([]);
    }
  });

  it('keeps the package graph of this round', () => {
    const importsOf = (name) => table.packages.find((pkg) => pkg.name === name).imports;
    expect(importsOf('core')).toEqual(['protocol']);
    expect(importsOf('docker')).not.toContain('agent-server');
    expect(importsOf('sdk')).not.toContain('agent-server');
    for (const forbidden of ['runtime-api', 'agent-server', 'docker']) {
      expect(importsOf('remote-api')).not.toContain(forbidden);
    }
  });
});

describe('the generator', () => {
  it('forbids every package the table does not allow, keeping an allowed entry open', () => {
    const { overrides } = biomeRules(table);
    const patternsOf = (include) =>
      overrides.find((override) => override.includes[0] === include).linter.rules.style
        .noRestrictedImports.options.patterns;
    const docker = patternsOf('packages/docker/src/**').flatMap((pattern) => pattern.group);
    expect(docker).toContain('@agent-workspace/agent-server');
    expect(docker).not.toContain('@agent-workspace/core');
    const runtimeApi = patternsOf('packages/runtime-api/src/**').flatMap(
      (pattern) => pattern.group,
    );
    expect(runtimeApi).toContain('@agent-workspace/agent-server/**');
    expect(runtimeApi).toContain('!@agent-workspace/agent-server/http');
    const remoteApi = patternsOf('packages/remote-api/src/**').flatMap((pattern) => pattern.group);
    expect(remoteApi).toEqual(expect.arrayContaining(['fastify', '@agent-workspace/runtime-api']));
    const pool = patternsOf('packages/core/src/pool/**').flatMap((pattern) => pattern.group);
    expect(pool).toEqual(expect.arrayContaining(['**/testing/**', '../index.js']));
    expect(pool).not.toContain('**/factory/**');
  });

  it('reports a folder in no layer, a missing folder and a package without a row', () => {
    const root = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      mkdirSync(join(root, 'packages/core/src/errors'), { recursive: true });
      mkdirSync(join(root, 'packages/core/src/brand-new'), { recursive: true });
      mkdirSync(join(root, 'packages/core/src/test-support'), { recursive: true });
      mkdirSync(join(root, 'packages/unlisted/src'), { recursive: true });
      const small = {
        ...table,
        packages: [
          {
            name: 'core',
            imports: [],
            layers: [{ folders: ['errors', 'gone'], may: [] }],
          },
        ],
      };
      expect(placementProblems(small, root)).toEqual([
        'packages/core/src/brand-new/ is in no layer of scripts/layers.json',
        'scripts/layers.json places packages/core/src/gone/, which does not exist',
        'packages/unlisted has src/ but no row in scripts/layers.json',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('finds a hand edit of the docs tables', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
    const edited = docs.replace('| `core` |', '| `core` (hand-edited) |');
    expect(edited).not.toBe(docs);
    expect(docsWithTables(edited, table)).toBe(docs);
  });

  it('finds drift of either file in a copy of the repository', () => {
    const root = mkdtempSync(join(tmpdir(), 'layers-'));
    try {
      for (const file of ['scripts/layers.json', 'biome.json', 'docs/architecture.md']) {
        mkdirSync(join(root, file, '..'), { recursive: true });
        writeFileSync(join(root, file), readFileSync(join(REPO_ROOT, file)));
      }
      const biome = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8'));
      biome.overrides.pop();
      writeFileSync(join(root, 'biome.json'), JSON.stringify(biome));
      const docs = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
      writeFileSync(join(root, 'docs/architecture.md'), docs.replace(/\| `pool\/`[^\n]*\n/, ''));
      expect(generateLayers({ root, write: false })).toEqual([
        'biome.json',
        'docs/architecture.md',
      ]);
      writeFileSync(join(root, 'docs/architecture.md'), docs);
      expect(generateLayers({ root, write: false })).toEqual(['biome.json']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
