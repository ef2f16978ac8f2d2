import { defineConfig } from 'tsup';

const entry = { index: 'src/index.ts', worktree: 'src/worktree.ts', clone: 'src/clone.ts' };

export default defineConfig({
  entry,
  format: ['esm'],
  dts: { entry },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
});
