import { defineConfig } from 'vitest/config';

// Needs a Docker engine and the agent-server image (built offline on first use).
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default', ['json', { outputFile: '../../.test-results/demo-integration.json' }]],
  },
});
