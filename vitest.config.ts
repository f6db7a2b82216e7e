import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files run in parallel on every core, and files and the tests in them in a shuffled order, so a
 * test that leans on another's data or on file order fails at once. The order comes from a seed,
 * printed here; `WAFCTL_TEST_SEED=N npm test` replays it (CONTRIBUTING.md).
 */
const seed = Number(process.env.WAFCTL_TEST_SEED) || Math.floor(Math.random() * 1_000_000) + 1;
if (!process.env.VITEST_WORKER_ID) {
  console.log(`Test order: shuffled with seed ${seed} (replay: WAFCTL_TEST_SEED=${seed} npm test)`);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    maxWorkers: availableParallelism(),
    sequence: { shuffle: true, seed },
    // A few tests start real emulators and the built CLI; give them room on a loaded 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
