import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // the machine has 2 cores; route tests start real servers, so keep the pool small
    pool: 'forks',
    maxWorkers: 2,
    // CI asks for a JSON report beside the default one (npm test runs `engine test` after vitest,
    // so reporter flags cannot be appended to the npm script)
    reporters: process.env.VITEST_JSON_REPORT ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON_REPORT ? { json: process.env.VITEST_JSON_REPORT } : undefined,
  },
});
