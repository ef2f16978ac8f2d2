// Writes the import rules of scripts/layers.json into biome.json (noRestrictedImports overrides)
// and docs/architecture.md (the tables between the layer markers). `--check` writes nothing and
// exits 1 when either file differs from what the table gives.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

/** The repository root. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The marker that opens the generated part of docs/architecture.md. */
export const DOCS_BEGIN =
  '<!-- layers:begin (generated from scripts/layers.json by `pnpm layers:generate`; edit the table there) -->';
/** The marker that closes it. */
export const DOCS_END = '<!-- layers:end -->';

const SCOPE = '@agent-workspace/';
const EXEMPT = ['!**/*.test.ts', '!**/test-support/**'];

/**
 * Reads the layer table.
 * @param {string} [root] the repository root
 */
export function readLayers(root = REPO_ROOT) {
  return JSON.parse(readFileSync(join(root, 'scripts/layers.json'), 'utf8'));
}

/** @param {string[]} names */
const listOf = (names) => names.join(', ');

/** The folders of a package, in table order. */
function foldersOf(pkg) {
  return pkg.layers.flatMap((row) => row.folders);
}

/** The pattern that keeps a package to the packages (or entries) its row allows. */
function packagePatterns(table, pkg) {
  const patterns = [...(pkg.forbid ?? [])];
  if (pkg.imports.includes('*')) return patterns;
  const group = [];
  for (const other of table.packages) {
    if (other.name === pkg.name || other.imports.includes('*')) continue;
    const allowed = pkg.imports.filter((spec) => spec.split('/')[0] === other.name);
    if (allowed.includes(other.name)) continue;
    group.push(`${SCOPE}${other.name}`, `${SCOPE}${other.name}/**`);
    for (const entry of allowed) group.push(`!${SCOPE}${entry}`);
  }
  const may = pkg.imports.map((spec) => `${SCOPE}${spec}`);
  patterns.push({
    group,
    message: `${SCOPE}${pkg.name} may import ${may.length > 0 ? `only ${listOf(may)}` : 'no other package of the repository'} (package table in docs/architecture.md, from scripts/layers.json). Tests and test-support/ are exempt.`,
  });
  return patterns;
}

/** The pattern that keeps one folder to the folders of its package its row allows. */
function folderPattern(pkg, row, folder) {
  const entries = pkg.entries ?? [];
  const free = row.may.includes('*');
  const others = free
    ? []
    : foldersOf(pkg).filter((other) => other !== folder && !row.may.includes(other));
  if (others.length === 0 && entries.length === 0) return undefined;
  const group = [
    ...others.map((other) => `**/${other}/**`),
    ...entries.flatMap((entry) => [`../${entry}.js`, `../../${entry}.js`]),
  ];
  const may = free
    ? 'any folder of the package'
    : row.may.length > 0
      ? listOf(row.may.map((name) => `${name}/`))
      : 'no other folder';
  const entryNote =
    entries.length > 0
      ? `; no folder imports the entries ${listOf(entries.map((name) => `${name}.ts`))}`
      : '';
  return {
    group,
    message: `Layers of packages/${pkg.name}/src (docs/architecture.md, from scripts/layers.json): ${folder}/ may import ${may}${entryNote}. Tests and test-support/ are exempt.`,
  };
}

/** One override that sets noRestrictedImports for the given files. */
function restrictOverride(includes, patterns) {
  return {
    includes: [...includes, ...EXEMPT],
    linter: {
      rules: {
        style: { noRestrictedImports: { level: 'error', options: { patterns } } },
      },
    },
  };
}

/**
 * The noRestrictedImports configuration the table gives: the repository-wide rule and the
 * overrides (package rules for each package's src/, then each folder's, which wins).
 * @param {ReturnType<typeof readLayers>} table
 */
export function biomeRules(table) {
  const overrides = [
    {
      includes: ['packages/*/bin/**'],
      linter: { rules: { style: { noRestrictedImports: 'off' } } },
    },
  ];
  for (const pkg of table.packages) {
    const packageLevel = packagePatterns(table, pkg);
    if (packageLevel.length > 0) {
      overrides.push(
        restrictOverride([`packages/${pkg.name}/src/**`], [table.sourceRule, ...packageLevel]),
      );
    }
    for (const row of pkg.layers) {
      for (const folder of row.folders) {
        const pattern = folderPattern(pkg, row, folder);
        if (pattern === undefined) continue;
        overrides.push(
          restrictOverride(
            [`packages/${pkg.name}/src/${folder}/**`],
            [table.sourceRule, ...packageLevel, pattern],
          ),
        );
      }
    }
  }
  return {
    rule: { level: 'error', options: { patterns: [table.sourceRule] } },
    overrides,
  };
}

/**
 * The markdown between the layer markers of docs/architecture.md.
 * @param {ReturnType<typeof readLayers>} table
 */
export function docsTables(table) {
  const lines = [
    '| package | may import | what it is |',
    '|---|---|---|',
    ...table.packages.map((pkg) => {
      const may = pkg.imports.includes('*')
        ? 'any package (tests only)'
        : pkg.imports.length > 0
          ? listOf(pkg.imports.map((spec) => `\`${spec}\``))
          : 'nothing (and no `node:`)';
      return `| \`${pkg.name}\` | ${may} | ${pkg.note} |`;
    }),
  ];
  const layered = table.packages.filter((pkg) => pkg.layers.length > 1);
  const flat = table.packages.filter((pkg) => pkg.layers.length <= 1);
  for (const pkg of layered) {
    const entries = (pkg.entries ?? []).map((name) => `\`${name}.ts\``);
    lines.push(
      '',
      `Inside \`${pkg.name}\` a folder imports only the folders its row names${entries.length > 0 ? ` and never the entries ${listOf(entries)}` : ''}:`,
      '',
      '| folder | may import |',
      '|---|---|',
    );
    for (const row of pkg.layers) {
      const folders = listOf(row.folders.map((name) => `\`${name}/\``));
      const note = row.note === undefined ? '' : ` (${row.note})`;
      const may = row.may.includes('*')
        ? `anything in ${pkg.name}`
        : row.may.length > 0
          ? listOf(row.may.map((name) => `\`${name}/\``))
          : `no other folder of ${pkg.name}`;
      lines.push(`| ${folders}${note} | ${may} |`);
    }
  }
  lines.push(
    '',
    'The folders of these packages import each other freely; they are listed so that a new folder',
    'has to be placed:',
    '',
    '| package | folders |',
    '|---|---|',
    ...flat.map(
      (pkg) => `| \`${pkg.name}\` | ${listOf(foldersOf(pkg).map((name) => `\`${name}/\``))} |`,
    ),
  );
  return lines.join('\n');
}

/**
 * docs/architecture.md with the generated tables put between its markers.
 * @param {string} docs the current text
 * @param {ReturnType<typeof readLayers>} table
 */
export function docsWithTables(docs, table) {
  const begin = docs.indexOf(DOCS_BEGIN);
  const end = docs.indexOf(DOCS_END);
  if (begin < 0 || end < begin) {
    throw new Error(`docs/architecture.md lacks the markers ${DOCS_BEGIN} … ${DOCS_END}`);
  }
  return `${docs.slice(0, begin + DOCS_BEGIN.length)}\n${docsTables(table)}\n${docs.slice(end)}`;
}

/**
 * Problems of the table against the tree: a folder under packages/<pkg>/src/ (other than
 * test-support/) in no layer, a layer folder that does not exist, a package with src/ that has
 * no row, a package row without a package.
 * @param {ReturnType<typeof readLayers>} table
 * @param {string} [root]
 */
export function placementProblems(table, root = REPO_ROOT) {
  const problems = [];
  const packagesDir = join(root, 'packages');
  const onDisk = readdirSync(packagesDir).filter((name) =>
    existsSync(join(packagesDir, name, 'src')),
  );
  for (const name of onDisk) {
    const pkg = table.packages.find((candidate) => candidate.name === name);
    if (pkg === undefined) {
      problems.push(`packages/${name} has src/ but no row in scripts/layers.json`);
      continue;
    }
    const listed = foldersOf(pkg);
    const folders = readdirSync(join(packagesDir, name, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'test-support')
      .map((entry) => entry.name);
    for (const folder of folders) {
      if (!listed.includes(folder)) {
        problems.push(`packages/${name}/src/${folder}/ is in no layer of scripts/layers.json`);
      }
    }
    for (const folder of listed) {
      if (!folders.includes(folder)) {
        problems.push(
          `scripts/layers.json places packages/${name}/src/${folder}/, which does not exist`,
        );
      }
    }
  }
  for (const pkg of table.packages) {
    if (!onDisk.includes(pkg.name)) {
      problems.push(`scripts/layers.json has a row for packages/${pkg.name}, which has no src/`);
    }
  }
  return problems;
}

/**
 * Compares (or, with `write`, rewrites) biome.json and docs/architecture.md against the table.
 * @param {{ root?: string, write?: boolean }} [options]
 * @returns {string[]} the files that differed
 */
export function generateLayers({ root = REPO_ROOT, write = false } = {}) {
  const table = readLayers(root);
  const stale = [];
  const biomePath = join(root, 'biome.json');
  const biome = JSON.parse(readFileSync(biomePath, 'utf8'));
  const { rule, overrides } = biomeRules(table);
  if (
    !isDeepStrictEqual(biome.linter.rules.style.noRestrictedImports, rule) ||
    !isDeepStrictEqual(biome.overrides, overrides)
  ) {
    stale.push('biome.json');
    if (write) {
      biome.linter.rules.style.noRestrictedImports = rule;
      biome.overrides = overrides;
      writeFileSync(biomePath, `${JSON.stringify(biome, null, 2)}\n`);
      execFileSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', biomePath], {
        cwd: root,
        stdio: 'inherit',
      });
    }
  }
  const docsPath = join(root, 'docs/architecture.md');
  const docs = readFileSync(docsPath, 'utf8');
  const expected = docsWithTables(docs, table);
  if (expected !== docs) {
    stale.push('docs/architecture.md');
    if (write) writeFileSync(docsPath, expected);
  }
  return stale;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const problems = placementProblems(readLayers());
  for (const problem of problems) console.error(problem);
  const stale = generateLayers({ write: !check });
  for (const file of stale) console.log(`${check ? 'out of date' : 'wrote'}: ${file}`);
  if (problems.length > 0 || (check && stale.length > 0)) process.exitCode = 1;
}
