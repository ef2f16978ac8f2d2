import { defineConfig } from 'vitest/config';

// The suites that need a Docker engine and a (single-node) swarm.
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    // Checks the engine, resolves the agent-server image and initialises a swarm when the engine
    // is in none (leaving it again afterwards), once for all suites.
    globalSetup: ['src/test-support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: [
      'default',
      ['json', { outputFile: '../../.test-results/runtime-api-integration.json' }],
    ],
  },
});
