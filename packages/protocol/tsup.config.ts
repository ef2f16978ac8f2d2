import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', constants: 'src/constants.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
