import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'build/**/*.test.ts'],
    // Suites that need more than plain processes run under vitest.integration.config.ts.
    exclude: [...configDefaults.exclude, 'src/**/*.integration.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', ['json', { outputFile: '../../.test-results/agent-server.json' }]],
  },
});
