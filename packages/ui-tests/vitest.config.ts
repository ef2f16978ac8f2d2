import { defineConfig } from 'vitest/config';

// Every suite drives the built page in a real Chromium against the built agent-server (`pnpm
// build` first; turbo's test:integration does). One browser process per file; files run one at
// a time so two Chromiums do not compete for the machine's two cores.
export default defineConfig({
  test: {
    include: ['src/**/*.integration.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    // A page under a loaded CI machine can take seconds to show what it will show.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default', ['json', { outputFile: '../../.test-results/ui-tests.json' }]],
  },
});
