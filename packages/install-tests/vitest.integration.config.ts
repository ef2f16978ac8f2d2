import { defineConfig } from 'vitest/config';

// Publishes the built packages (`pnpm build` first; turbo's test:integration does) to a local
// registry and installs each one alone with npm: minutes on a cold npm cache, seconds warm.
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default', ['json', { outputFile: '../../.test-results/install-tests.json' }]],
  },
});
