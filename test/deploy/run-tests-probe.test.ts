// A test that fails only when test/deploy/run-tests.test.ts asks it to (RUN_TESTS_PROBE=fail), so
// that test can watch `npm test` sum a vitest failure with the route tests that still run after it.
import { it, expect } from 'vitest';

it('passes unless run-tests.test.ts asks it to fail', () => {
  expect(process.env.RUN_TESTS_PROBE).not.toBe('fail');
});
