import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests spawn the built CLI and real emulators; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
