import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files run in parallel on every core, and files and the tests in them in a shuffled order, so a
 * test that leans on another's data or on file order fails at once. vitest prints the order's seed
 * first (`Running tests with seed "N"`); `WAFCTL_TEST_SEED=N npm test` replays it (CONTRIBUTING.md).
 */
const seed = Number(process.env.WAFCTL_TEST_SEED) || Math.floor(Math.random() * 1_000_000) + 1;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    maxWorkers: availableParallelism(),
    sequence: { shuffle: true, seed },
    // A few tests start real emulators and the built CLI; give them room on a loaded 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // `npm run coverage`: what the suite runs of src/ (commands included: they run in process).
    coverage: { provider: 'v8', include: ['src/**'], reporter: ['text-summary', 'json'] },
  },
});
