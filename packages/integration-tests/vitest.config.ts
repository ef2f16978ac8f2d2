import { defineConfig } from 'vitest/config';

// Every suite here runs the built packages (`pnpm build` first; turbo's test:integration does).
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', ['json', { outputFile: '../../.test-results/integration-tests.json' }]],
  },
});
