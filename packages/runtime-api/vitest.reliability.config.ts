import { defineConfig } from 'vitest/config';

// The Runtime API server's reliability suite (reliability/README.md): the built `runtime-api`
// CLI as a child process under bad input, wrong keys and full capacity.
export default defineConfig({
  test: {
    include: ['reliability/**/*.test.ts'],
    globalSetup: ['src/test-support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: [
      'dot',
      ['json', { outputFile: '../../.test-results/runtime-api-reliability.json' }],
    ],
  },
});
