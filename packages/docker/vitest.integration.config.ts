import { defineConfig } from 'vitest/config';

// The suites that need a Docker engine.
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    // Checks the engine and resolves the agent-server test image once for all suites.
    globalSetup: ['src/workspace/test-support/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: ['default', ['json', { outputFile: '../../.test-results/docker-integration.json' }]],
  },
});
