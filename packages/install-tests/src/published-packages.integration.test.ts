import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerProject, createConsumerProject } from './test-support/consumer-project.js';
import { matchInstalled } from './test-support/installed-packages.js';
import { type LocalRegistry, startLocalRegistry } from './test-support/local-registry.js';
import { parseTscDiagnostics } from './test-support/parse-tsc-diagnostics.js';
import { type PublishedPackage, publishPackages } from './test-support/publish-packages.js';
import { inspectShippedFiles } from './test-support/shipped-files.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = path.resolve(packageDir, '../..');
const consumersDir = path.join(packageDir, 'src', 'consumers');
const tsc = path.join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
/** Kept between runs: a package whose content did not change is not published again. */
const storageDir = path.join(packageDir, 'node_modules', '.cache', 'registry', 'storage');

/** Where the install sizes of one run are written, beside the other test results. */
const sizesFile = path.join(repoDir, '.test-results', 'install-sizes.json');

/** The runtime plugins' heavy libraries: optional peers of runtime-plugins, deps of the server. */
const PLUGIN_LIBRARIES = ['zeromq', 'playwright-core', 'turndown'];
/** The HTTP server and the LLM libraries: only the servers and the SDK need them. */
const SERVER_AND_LLM = ['fastify', 'ai', '@ai-sdk/*'];
const HEAVY = [...SERVER_AND_LLM, ...PLUGIN_LIBRARIES];

/**
 * Each public package, by folder, with an export a `require()` must find, the packages (name or
 * `@scope/*`) installing it alone must not bring, and those it must.
 */
const PACKAGES: readonly {
  folder: string;
  requiredExport: string;
  absent: readonly string[];
  present?: readonly string[];
}[] = [
  { folder: 'protocol', requiredExport: 'bashEventFromWire', absent: HEAVY },
  { folder: 'core', requiredExport: 'LocalWorkspace', absent: HEAVY },
  {
    folder: 'agent-server',
    requiredExport: 'createAgentServer',
    absent: [],
    // `npx agent-server --plugin python` works after installing it alone; it serves the page.
    present: ['fastify', 'ai', '@agent-workspace/ui', ...PLUGIN_LIBRARIES],
  },
  {
    folder: 'docker',
    requiredExport: 'DockerWorkspace',
    absent: [...HEAVY, '@agent-workspace/agent-server'],
  },
  { folder: 'git-workspaces', requiredExport: 'GitWorkspace', absent: HEAVY },
  {
    folder: 'ao-workspaces',
    requiredExport: 'createAoWorkspace',
    // A plugin for Composio's orchestrator, not a copy of it: ao-core stays the user's.
    absent: [...HEAVY, '@composio/*', '@agent-workspace/agent-server'],
  },
  {
    folder: 'remote-api',
    requiredExport: 'RemoteAPIWorkspace',
    absent: [...HEAVY, 'dockerode', '@agent-workspace/agent-server', '@agent-workspace/docker'],
  },
  {
    folder: 'runtime-api',
    requiredExport: 'createRuntimeApiServer',
    absent: [],
    present: ['fastify', 'dockerode'],
  },
  { folder: 'runtime-plugins', requiredExport: 'PluginHost', absent: HEAVY },
  { folder: 'sdk', requiredExport: 'Agent', absent: ['fastify', ...PLUGIN_LIBRARIES] },
];

/** The web page: built static files only, no code entry, no dependency. */
const STATIC_PACKAGES = ['ui'] as const;

/** The fields of a published version's manifest this test reads. */
interface PublishedManifest {
  engines?: Record<string, string>;
  repository?: { directory?: string };
  dependencies?: Record<string, string>;
}

describe('every public package, published to a registry and installed alone', () => {
  let registry: LocalRegistry;
  let stagingDir: string;
  let published: PublishedPackage[];
  /**
   * The folder every package's project is made in: a project itself, with what a TypeScript
   * user adds (`@types/node`), so that one `tsc` checks every project's `consumer.ts`.
   */
  let typescriptRoot: ConsumerProject;
  /** The project that installed each package alone, by package name. */
  const projects = new Map<string, ConsumerProject>();
  /** tsc's diagnostics (`file(line,column): message`) by package name. */
  const diagnostics = new Map<string, string[]>();
  /** tsc's output that names no package's project (a tsconfig or install problem). */
  let unplaced: string[] = [];
  /** Bytes of `node_modules` after installing each package alone, by package name. */
  const installSizes = new Map<string, { bytes: number; packages: number }>();

  beforeAll(async () => {
    for (const { folder } of PACKAGES) {
      const dist = path.join(repoDir, 'packages', folder, 'dist');
      if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`pnpm build\` first`);
    }
    registry = await startLocalRegistry({ storageDir, scope: '@agent-workspace' });
    stagingDir = await mkdtemp(path.join(tmpdir(), 'agent-workspace-release-'));
    published = await publishPackages({ repoDir, stagingDir, registry });
    typescriptRoot = await createConsumerProject({ registry, spec: '@types/node@^20.19.0' });
    for (const name of [...PACKAGES.map(({ folder }) => folder), ...STATIC_PACKAGES].map(
      (folder) => `@agent-workspace/${folder}`,
    )) {
      const { version } = published.find((p) => p.name === name) as PublishedPackage;
      const project = await createConsumerProject({
        registry,
        spec: `${name}@${version}`,
        parentDir: typescriptRoot.dir,
      });
      projects.set(name, project);
      installSizes.set(name, {
        bytes: project.installed.bytes,
        packages: project.installed.names.size,
      });
    }
    await typecheckConsumers();
  }, 900_000);

  /**
   * Typechecks every package's `consumer.ts` in one program (`tsconfig.consumer.json`'s options
   * at the root). Each file, and each declaration file it reaches, resolves its imports from the
   * project that installed its package alone; a library two projects installed at the same
   * version (zod, …) is read and checked once, which is most of a check's time.
   */
  async function typecheckConsumers(): Promise<void> {
    const options = JSON.parse(
      await readFile(path.join(consumersDir, 'tsconfig.consumer.json'), 'utf8'),
    );
    const files: string[] = [];
    for (const { folder } of PACKAGES) {
      const project = projects.get(`@agent-workspace/${folder}`) as ConsumerProject;
      await project.add(path.join(consumersDir, `${folder}.consumer.ts`), 'consumer.ts');
      files.push(path.join(path.basename(project.dir), 'consumer.ts'));
    }
    await writeFile(
      path.join(typescriptRoot.dir, 'tsconfig.json'),
      JSON.stringify({ ...options, files }),
    );
    const result = await typescriptRoot.run('node', [
      tsc,
      '-p',
      'tsconfig.json',
      '--pretty',
      'false',
    ]);
    const parsed = parseTscDiagnostics(result.all);
    unplaced = parsed.other;
    for (const { file, line, column, message } of parsed.diagnostics) {
      const text = `${file}(${line},${column}): ${message}`;
      const owner = [...projects].find(([, project]) =>
        file.startsWith(`${path.basename(project.dir)}/`),
      )?.[0];
      if (owner === undefined) unplaced.push(text);
      else diagnostics.set(owner, [...(diagnostics.get(owner) ?? []), text]);
    }
    if (result.exitCode !== 0 && parsed.diagnostics.length === 0 && unplaced.length === 0) {
      unplaced.push(`tsc exited with ${result.exitCode}:\n${result.all}`);
    }
  }

  afterAll(async () => {
    await registry?.[Symbol.asyncDispose]();
    if (stagingDir) await rm(stagingDir, { recursive: true, force: true });
    if (typescriptRoot) await rm(typescriptRoot.dir, { recursive: true, force: true });
    if (installSizes.size === 0) return;
    const rows = [...installSizes].map(([name, size]) => ({
      package: name,
      bytes: size.bytes,
      MB: Number((size.bytes / 1e6).toFixed(1)),
      packages: size.packages,
    }));
    console.table(rows);
    await mkdir(path.dirname(sizesFile), { recursive: true });
    await writeFile(sizesFile, `${JSON.stringify(rows, null, 2)}\n`);
  });

  it('typechecks every consumer in one tsc, which reports nothing outside their projects', () => {
    expect(unplaced).toEqual([]);
  });

  it('publishes exactly the public packages, at one version, with internal ranges resolved', async () => {
    expect(published.map((p) => p.name).sort()).toEqual(
      [...PACKAGES.map(({ folder }) => folder), ...STATIC_PACKAGES]
        .map((folder) => `@agent-workspace/${folder}`)
        .sort(),
    );
    const [{ version }] = published as [PublishedPackage];
    expect(version).toMatch(/^\d+\.\d+\.\d+-install-[0-9a-f]{12}$/);
    for (const { name } of published) {
      const response = await fetch(new URL(name.replace('/', '%2f'), registry.url));
      expect(response.status, name).toBe(200);
      const document = (await response.json()) as { versions: Record<string, PublishedManifest> };
      const manifest = document.versions[version] as PublishedManifest;
      expect(manifest.engines, name).toEqual({ node: '>=20.19' });
      expect(manifest.repository?.directory, name).toMatch(/^packages\//);
      for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
        if (dependency.startsWith('@agent-workspace/')) expect(range, name).toBe(version);
        expect(range, `${name} -> ${dependency}`).not.toMatch(/^workspace:/);
      }
    }
  });

  for (const { folder, requiredExport, absent, present = [] } of PACKAGES) {
    const name = `@agent-workspace/${folder}`;

    describe(name, () => {
      let project: ConsumerProject;

      beforeAll(async () => {
        project = projects.get(name) as ConsumerProject;
        await project.add(path.join(consumersDir, `${folder}.smoke.mjs`), 'smoke.mjs');
      });

      it('ships its build, its README and the sources its sourcemaps name, and no tests', async () => {
        const installed = path.join(project.dir, 'node_modules', name);
        const { files, missingSources } = await inspectShippedFiles(installed);
        expect(files).toContain('README.md');
        expect(files).toContain('dist/index.js');
        expect(files).toContain('dist/index.d.ts');
        expect(files.filter((file) => /\.test\.ts$|test-support|\.turbo/.test(file))).toEqual([]);
        expect(missingSources).toEqual([]);
      });

      it('brings only the libraries it needs', () => {
        expect(matchInstalled(project.installed, absent), 'installed, but not needed').toEqual([]);
        expect(matchInstalled(project.installed, present), 'needed, but not installed').toEqual(
          present,
        );
      });

      it('runs its smoke script', async () => {
        // runtime-plugins alone has no zeromq (an optional peer): its python plugin says so.
        const args = folder === 'runtime-plugins' ? ['smoke.mjs', 'without-zeromq'] : ['smoke.mjs'];
        const result = await project.run('node', args);
        expect(result.all).toContain(`${folder} ok`);
        expect(result.exitCode, result.all).toBe(0);
      });

      it('typechecks under strict, module nodenext, without skipLibCheck', () => {
        const found = diagnostics.get(name) ?? [];
        expect(found, found.join('\n')).toEqual([]);
      });

      it('loads with require() and no warning', async () => {
        const script = `const m = require(${JSON.stringify(name)}); process.stdout.write(typeof m.${requiredExport});`;
        const result = await project.run('node', ['-e', script]);
        expect(result.stderr).toBe('');
        expect(result.stdout).toBe('function');
      });

      if (folder === 'runtime-plugins') {
        it('runs the python plugin once the user installs zeromq', async () => {
          const install = await project.run('npm', [
            'install',
            '--no-audit',
            '--no-fund',
            '--prefer-offline',
            '--loglevel=error',
            'zeromq@^6.5.0',
          ]);
          expect(install.exitCode, install.all).toBe(0);
          const result = await project.run('node', ['smoke.mjs']);
          expect(result.all).toContain('runtime-plugins ok');
          expect(result.exitCode, result.all).toBe(0);
        });
      }
    });
  }

  for (const folder of STATIC_PACKAGES) {
    const name = `@agent-workspace/${folder}`;

    describe(name, () => {
      let project: ConsumerProject;

      beforeAll(() => {
        project = projects.get(name) as ConsumerProject;
      });

      it('ships the built page and its README, no sources, no tests, and installs nothing else', async () => {
        const installed = path.join(project.dir, 'node_modules', name);
        const { files } = await inspectShippedFiles(installed);
        expect(files).toContain('README.md');
        expect(files).toContain('dist/index.html');
        expect(files.some((file) => /^dist\/assets\/[^/]+\.js$/.test(file))).toBe(true);
        expect(files.filter((file) => /^src\/|\.test\.ts$|\.turbo/.test(file))).toEqual([]);
        expect([...project.installed.names]).toEqual([name]);
      });

      it('resolves its built files through the package exports', async () => {
        const script = `process.stdout.write(require.resolve(${JSON.stringify(`${name}/dist/index.html`)}));`;
        const result = await project.run('node', ['-e', script]);
        expect(result.stderr).toBe('');
        expect(result.stdout).toMatch(/dist\/index\.html$/);
      });
    });
  }
});
