import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // the machine has 2 cores; route tests start real servers, so keep the pool small
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
