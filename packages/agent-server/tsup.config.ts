import { cp, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';

const packageDir = path.dirname(fileURLToPath(import.meta.url));

/** swagger-ui's assets, which the bundle cannot inline; they are copied next to it. */
const swaggerUiStatic = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')),
  'static',
);

/** The built web page (`@agent-workspace/ui`'s `dist`), copied next to the bundle as `ui`. */
const uiDist = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@agent-workspace/ui/package.json')),
  'dist',
);

/**
 * proxy-chain answers a refused request with the status of its `RequestError`, which it tells
 * by `name`, set from the class's own name; bundled, esbuild names that class `_RequestError`.
 * This pins the name, so the bundle needs no `keepNames`, whose `__name` call on every function
 * and class cost about 10 ms of every start.
 */
const pinProxyChainErrorName: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'pin-proxy-chain-error-name',
  setup(build) {
    build.onLoad({ filter: /[\\/]proxy-chain[\\/]dist[\\/]request_error\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const pinned = source.replace(
        'this.name = RequestError.name;',
        "this.name = 'RequestError';",
      );
      if (pinned === source) throw new Error(`${args.path}: no RequestError name to pin`);
      return { contents: pinned, loader: 'js' };
    });
  },
};

/**
 * tsup options of the single-file bundle in `outDir`: `agent-server.cjs`, the CLI with every
 * dependency inlined (but the runtime plugins' libraries) as one CommonJS file, runnable with
 * plain `node` where no `node_modules` exist (container images), and its launcher
 * `agent-server-launcher.cjs` (see `bundle/`: it compiles the bundle with a V8 code cache when
 * one was written; `agent-server.mjs` runs it as an ES module). swagger-ui's `static` folder is copied to `<outDir>/static`,
 * where the bundle serves `/docs` from, and the web page to `<outDir>/ui`, served at `/`.
 */
export function bundleOptions(outDir: string): Options {
  return {
    entry: { 'agent-server': path.join(packageDir, 'src/bundle/bundle-main.ts') },
    outDir,
    outExtension: () => ({ js: '.cjs' }),
    format: ['cjs'],
    platform: 'node',
    target: 'node20',
    // Everything is inlined but the runtime plugins' libraries (a native addon, a browser driver
    // with its own files): a plugin whose library is not installed next to the bundle fails
    // with its install hint, and the server runs on.
    noExternal: [/^(?!(playwright-core|zeromq|turndown)(\/|$))/],
    external: ['playwright-core', 'zeromq', 'turndown'],
    splitting: false,
    // `import.meta.url` for inlined ES module code.
    shims: true,
    clean: true,
    define: { AGENT_SERVER_BUNDLE: 'true' },
    // Without comments and indentation the file is a third smaller: less to read and decode at
    // every start (6–10 ms of ~170). Names stay (no identifier minification), so stack traces
    // still name their functions.
    minifyWhitespace: true,
    esbuildPlugins: [pinProxyChainErrorName],
    // `import()` of those libraries becomes `require()`: V8 drops a script's dynamic-import
    // callback when its code comes from a code cache.
    esbuildOptions: (esbuild) => {
      esbuild.supported = { ...esbuild.supported, 'dynamic-import': false };
    },
    onSuccess: async () => {
      await cp(swaggerUiStatic, path.join(outDir, 'static'), { recursive: true });
      await cp(uiDist, path.join(outDir, 'ui'), { recursive: true });
      for (const launcher of ['agent-server-launcher.cjs', 'agent-server.mjs']) {
        await cp(path.join(packageDir, 'bundle', launcher), path.join(outDir, launcher));
      }
    },
  };
}

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      cli: 'src/cli.ts',
      'http/index': 'src/http/index.ts',
      'testing/index': 'src/testing/index.ts',
    },
    format: ['esm'],
    dts: {
      entry: {
        index: 'src/index.ts',
        'http/index': 'src/http/index.ts',
        'testing/index': 'src/testing/index.ts',
      },
    },
    sourcemap: true,
    // The bundle below cleans its own folder.
    clean: ['!bundle/**'],
    target: 'node20',
    platform: 'node',
  },
  bundleOptions('dist/bundle'),
]);
