import { defineConfig } from 'vitest/config';

// The reliability suite (reliability/README.md): attacks the built CLI as child processes. Its
// files load the machine (descriptors, processes, gigabytes of output), so at most two run at a
// time: each keeps about one core busy, and two at a time halve the suite on two cores (316 s one
// at a time, 174 s two at a time), where vitest's default would run one.
export default defineConfig({
  test: {
    include: ['reliability/**/*.test.ts'],
    globalSetup: ['reliability/support/global-setup.ts'],
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Dots and failures only: the figures table (printed by the global setup) is the summary.
    reporters: [
      'dot',
      ['json', { outputFile: '../../.test-results/agent-server-reliability.json' }],
    ],
  },
});
