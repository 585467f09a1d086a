// `npm test` (build/run-tests.mjs): vitest, then the route tests even when vitest failed, then one
// closing line, the last of the output, that sums both; its exit code says whether anything failed.
import { it, expect } from 'vitest';
import { spawn } from 'node:child_process';

const PROBE = 'test/deploy/run-tests-probe.test.ts';
const CLOSING =
  /^(\d+) passed, (\d+) failed \(vitest: (\d+) passed, (\d+) failed; route tests: (\d+) passed, 0 failed\) in \d+ s$/;

/** `npm test -- PROBE`; killed with all it started after 100 s (a failed test leaves no suite running). */
function npmTest(more: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  // the outer run's JSON report (CI's) is not this run's to write
  const { VITEST_JSON_REPORT: _, ...env } = process.env;
  return new Promise((ok) => {
    const child = spawn('npm', ['test', '--silent', '--', PROBE], {
      env: { ...env, ...more },
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 100_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      ok({ code: code ?? 1, lines: out.trimEnd().split('\n') });
    });
  });
}

it('ends with one line summing vitest and the route tests', async () => {
  const r = await npmTest({});
  const m = CLOSING.exec(r.lines.at(-1)!);
  expect(m, r.lines.slice(-3).join('\n')).not.toBeNull();
  const [, passed, failed, vPassed, vFailed, routes] = m!.map(Number);
  expect([vPassed, vFailed, failed]).toEqual([1, 0, 0]);
  expect(routes).toBeGreaterThanOrEqual(30);
  expect(passed).toBe(vPassed + routes);
  expect(r.code).toBe(0);
}, 120_000);

it('runs the route tests after a vitest failure, counts it and exits 1', async () => {
  const r = await npmTest({ RUN_TESTS_PROBE: 'fail' });
  const m = CLOSING.exec(r.lines.at(-1)!);
  expect(m, r.lines.slice(-3).join('\n')).not.toBeNull();
  const [, passed, failed, vPassed, vFailed, routes] = m!.map(Number);
  expect([vPassed, vFailed, failed]).toEqual([0, 1, 1]);
  expect(passed).toBe(routes);
  expect(routes).toBeGreaterThanOrEqual(30);
  expect(r.code).toBe(1);
}, 120_000);
