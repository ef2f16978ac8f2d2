import { defineConfig } from 'vitest/config';

// The page's pure logic in Node (no DOM); the page itself is tested in a real Chromium by
// packages/ui-tests.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: '../../.test-results/ui.json' }]],
  },
});
