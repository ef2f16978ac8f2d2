import { cp, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';
import { workspaceModuleImports } from './build/workspace-module-imports.js';

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

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * The workspace packages the bundle takes module by module, from their sources (see
 * `workspaceModuleImports`): protocol, whose schemas for conversations and the OpenAPI document
 * a first command does not need. core, sdk and runtime-plugins taken so gave nothing: the first
 * command's path runs most of their modules.
 */
const MODULE_BY_MODULE_PACKAGES = ['protocol'];

/** One text replacement in a dependency's file, made as the bundle takes the file in. */
interface SourcePatch {
  /** The files it applies to. */
  file: RegExp;
  /** The exact text replaced (its first occurrence). */
  text: string;
  /** What replaces it. */
  replacement: string;
}

/**
 * The bundle's own changes to its dependencies' code. A patch whose text is no longer there
 * fails the build: the dependency changed, and the patch needs a new look.
 *
 * - proxy-chain answers a refused request with the status of its `RequestError`, which it
 *   tells by `name`, set from the class's own name; bundled, esbuild names that class
 *   `_RequestError`. The name is pinned, so the bundle needs no `keepNames`, whose `__name`
 *   call on every function and class cost about 10 ms of every start.
 * - find-my-way (Fastify's router) compiles, with `new Function`, a matcher for each static
 *   path prefix and a params-object builder for each route as the route is added: code no V8
 *   code cache keeps, about 3 ms of every start. The same checks as closures: a prefix is
 *   matched with `startsWith`, the params object is filled in a loop.
 * - Fastify loads Node's `http2` as it loads, for servers made with its `http2` option, which the
 *   agent-server never sets: about 3 ms of every start. It loads on first use instead.
 */
const BUNDLE_PATCHES: SourcePatch[] = [
  {
    file: /[\\/]proxy-chain[\\/]dist[\\/]request_error\.js$/,
    text: 'this.name = RequestError.name;',
    replacement: "this.name = 'RequestError';",
  },
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]node\.js$/,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the patched text is a template literal.
    text: "return new Function('path', 'i', `'use strict'\\nreturn ${lines.join(' && ')}`)",
    replacement: 'return (path, i) => path.startsWith(prefix, i)',
  },
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]handler-storage\.js$/,
    text: "return new Function('NullObject', fnBody.join('\\n'))(NullObject)",
    replacement: `return function _createParamsObject (param0, param1, param2, param3, extraParams) {
      const object = new NullObject()
      for (let i = 0; i < params.length; i++) {
        object[params[i]] = i === 0 ? param0 : i === 1 ? param1 : i === 2 ? param2 : i === 3 ? param3 : extraParams[i - 4]
      }
      return object
    }`,
  },
  {
    file: /[\\/]fastify[\\/]lib[\\/]server\.js$/,
    text: "const http2 = require('node:http2')",
    replacement: "const http2 = new Proxy({}, { get: (_, key) => require('node:http2')[key] })",
  },
];

/** Applies {@link BUNDLE_PATCHES} as esbuild loads the files. */
const patchDependencies: EsbuildPlugin = {
  name: 'patch-dependencies',
  setup(build) {
    const filter = new RegExp(BUNDLE_PATCHES.map((patch) => patch.file.source).join('|'));
    build.onLoad({ filter }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      for (const patch of BUNDLE_PATCHES.filter(({ file }) => file.test(args.path))) {
        if (!source.includes(patch.text)) {
          throw new Error(`${args.path}: no ${JSON.stringify(patch.text)} to patch`);
        }
        source = source.replace(patch.text, () => patch.replacement);
      }
      return { contents: source, loader: 'js' };
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
    esbuildPlugins: [
      workspaceModuleImports({ packageDir, packages: MODULE_BY_MODULE_PACKAGES }),
      patchDependencies,
    ],
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
