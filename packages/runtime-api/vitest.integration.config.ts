import { defineConfig } from 'vitest/config';

// The suites that need a Docker engine and a (single-node) swarm.
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    // Checks the engine, resolves the agent-server image and initialises a swarm when the engine
    // is in none (leaving it again afterwards), once for all suites.
    globalSetup: ['src/test-support/global-setup.ts'],
    // Two files at a time (each has a label namespace of its own): they mostly wait on the engine,
    // and one at a time they were the longest suite of CI's integration phase (529 s for 55 s of
    // CPU), where vitest's default on two cores runs one.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: [
      'default',
      ['json', { outputFile: '../../.test-results/runtime-api-integration.json' }],
    ],
  },
});
