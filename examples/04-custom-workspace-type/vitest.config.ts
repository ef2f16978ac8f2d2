import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: [
      'default',
      ['json', { outputFile: '../../.test-results/example-custom-workspace-type.json' }],
    ],
  },
});
