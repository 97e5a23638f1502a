import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once from this tree before any test runs: many tests spawn the bundles.
    globalSetup: ['test/support/build-bundles.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Trials spawn real processes; two cores are all we have.
    maxWorkers: 2,
  },
});
