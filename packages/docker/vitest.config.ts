import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: ['default', ['json', { outputFile: '../../.test-results/docker.json' }]],
  },
});
