import { defineConfig } from 'vitest/config';

// The reliability suite (reliability/README.md): attacks the built CLI as child processes. Its
// files load the machine (descriptors, processes, gigabytes of output), so they run one at a time.
export default defineConfig({
  test: {
    include: ['reliability/**/*.test.ts'],
    globalSetup: ['reliability/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Dots and failures only: the figures table (printed by the global setup) is the summary.
    reporters: [
      'dot',
      ['json', { outputFile: '../../.test-results/agent-server-reliability.json' }],
    ],
  },
});
