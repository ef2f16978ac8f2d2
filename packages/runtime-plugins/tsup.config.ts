import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  // Optional peer dependencies, loaded at run time only by the plugins that need them.
  external: ['playwright-core', 'turndown', 'zeromq'],
});
