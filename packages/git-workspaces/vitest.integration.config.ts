import { defineConfig } from 'vitest/config';

// The suites that need a Docker engine (a worktree mounted into a DockerWorkspace).
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    reporters: [
      'default',
      ['json', { outputFile: '../../.test-results/git-workspaces-integration.json' }],
    ],
  },
});
