import { defineConfig } from 'vitest/config';

// The browser and IPython tool suites: a real plugin host with Debian's Chromium and a kernel.
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default', ['json', { outputFile: '../../.test-results/sdk-integration.json' }]],
  },
});
