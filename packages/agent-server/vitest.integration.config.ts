import { defineConfig } from 'vitest/config';

// Suites that need a kernel feature beyond plain processes (the bubblewrap command sandbox).
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: [
      'default',
      ['json', { outputFile: '../../.test-results/agent-server-integration.json' }],
    ],
  },
});
