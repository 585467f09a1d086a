// `engine routes` (a README example) lists the shipped routes and reports no problem: the gateway's
// tools files are documents of the gateway extension, read as in a run, not taken for broken routes.
import { it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';

it('engine routes routes/ lists every shipped route and no false problem for the tools files', () => {
  const r = spawnSync(process.execPath, ['bin/engine.js', 'routes', 'routes/'], { encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout).toMatch(
    /^get-exchange-rate\s+POST \/foreign-exchange\/exchange-rates\s+gc-hubvendor-foreign-exchange-connector/m,
  );
  expect(r.stdout).toMatch(/^screening-webhook\s+POST \/webhooks\/screening/m);
  expect(r.stdout).not.toContain('problem(s)');
  expect(r.stdout).not.toContain('routes/gateway/');
});
