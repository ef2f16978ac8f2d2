import { defineConfig } from 'vitest/config';

// The client's unit tests, against scripted HTTP peers. Its end-to-end suites (a real Runtime API
// server on Docker and a swarm) live in packages/runtime-api, beside the server.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', ['json', { outputFile: '../../.test-results/remote-api.json' }]],
  },
});
