// An environment file's `connectors:` names the route folders it runs: `engine routes`, lint and a
// start load only those (the others need none of their keys), a misspelt name is an error at its
// line, and a connector folder given on the command line that the environment does not run is
// refused rather than started empty.

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineCli } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'connectors-env-'));
const values = join(dir, 'values');
cpSync('values', values, { recursive: true, dereference: true });
writeFileSync(
  join(values, 'environments', 'two.yaml'),
  `connectors:
  - hubvendor-foreign-exchange
  - screenvendor-screening
keys:
  hubvendor-base-url: https://hub.example.test
  screenvendor-base-url: https://screening.example.test
properties:
  '*':
    asb.producer.apiUri: https://events.example.test/events
`,
);
writeFileSync(
  join(values, 'environments', 'typo.yaml'),
  `connectors: [hubvendor-foreign-exchange, screenvendor-screenin]\n`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('connectors: per environment', () => {
  it('`engine routes` lists only the routes of the connectors the environment runs', async () => {
    const r = await engineCli(['routes', '--env', 'two', '--values', values]);
    expect(r.code).toBe(0);
    const folders = new Set(
      r.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => /routes\/([^/]+)\//.exec(l)![1]),
    );
    expect([...folders].sort()).toEqual(['hubvendor-foreign-exchange', 'screenvendor-screening']);
    // all of them without the list
    const all = await engineCli(['routes', '--env', 'sandbox']);
    expect(all.stdout).toMatch(/routes\/hubvendor-payment\//);
  });

  it('lint needs the keys of those connectors only: their two secrets, nothing of the others', async () => {
    const r = await engineCli(['lint', 'routes/', '--env', 'two', '--values', values], {
      env: { SCREENVENDOR_API_KEY: undefined, SCREENVENDOR_WEBHOOK_SECRET: undefined },
    });
    expect(r.code).toBe(1);
    const missing = [...r.stdout.matchAll(/environmental key '([^']+)' is not set/g)].map((m) => m[1]).sort();
    expect(missing).toEqual(['screenvendor-api-key', 'screenvendor-webhook-secret']);
    expect(r.stdout).toMatch(/^2 problem\(s\)$/m);
    const ok = await engineCli(['lint', 'routes/', '--env', 'two', '--values', values], {
      env: { SCREENVENDOR_API_KEY: 'k-for-tests', SCREENVENDOR_WEBHOOK_SECRET: 'whsec_dGVzdHM=' },
    });
    expect(ok.stdout).toBe('no problems\n');
    expect(ok.code).toBe(0);
  });

  it('a name that is no route folder is an error at its line, with the nearest name', async () => {
    const r = await engineCli(['lint', 'routes/', '--env', 'typo', '--values', values]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      "environments/typo.yaml:1:42 there is no connector folder 'screenvendor-screenin'; did you mean 'screenvendor-screening'? (at connectors[1])",
    );
  });

  it('a connector folder named that the environment does not run loads, with a warning in lint and at start', async () => {
    const lint = await engineCli(['lint', 'routes/hubvendor-payment', '--env', 'two', '--values', values]);
    expect(lint.stdout).toMatch(
      /^routes\/hubvendor-payment:1:1 warning: connector 'hubvendor-payment' is not one environment 'two' runs \(connectors: in .*two\.yaml: hubvendor-foreign-exchange, screenvendor-screening\): loaded because it was named; add it there for a run of the whole route folder$/m,
    );
    // its routes were loaded and checked: its keys are asked for like any loaded connector's
    expect(lint.stdout).toMatch(/hubvendor/);
  });

  it('refuses a list that is not one of folder names', async () => {
    writeFileSync(join(values, 'environments', 'bad.yaml'), `connectors: hubvendor-payment\n`);
    const r = await engineCli(['lint', 'routes/', '--env', 'bad', '--values', values]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("'connectors' must be a list of route folder names");
  });
});
