import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    'testing/index': 'src/testing/index.ts',
    'engine/index': 'src/engine/index.ts',
  },
  format: ['esm'],
  dts: {
    entry: {
      index: 'src/index.ts',
      'testing/index': 'src/testing/index.ts',
      'engine/index': 'src/engine/index.ts',
    },
  },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
});
