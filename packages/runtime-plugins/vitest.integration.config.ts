import { defineConfig } from 'vitest/config';

// The suites that need Debian's Chromium or a Jupyter kernel (python3-ipykernel).
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: [
      'default',
      ['json', { outputFile: '../../.test-results/runtime-plugins-integration.json' }],
    ],
  },
});
