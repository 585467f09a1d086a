// `engine lint --env NAME` resolves what `engine run --env NAME` resolves (environmental keys from
// --set, the process environment, --secrets and the environment file; simulator references), so
// the two agree: what a start refuses, lint refuses with the same lines, and what lint passes
// starts. A missing key is said once, at the values file line naming it, with how to set it.

import { describe, it, expect } from 'vitest';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { engineCli, engineStarts } from '../helpers/cli.ts';
import { DEPLOYMENT_KEYS } from '../helpers/deployment-keys.ts';
import { tmpProject } from '../helpers/tmp-project.ts';

/** None of the shipped connectors' keys in the process environment. */
const NO_KEYS = Object.fromEntries(Object.keys(DEPLOYMENT_KEYS).map((k) => [k, undefined]));

/** The diagnostic lines of `engine lint` (stdout) or of a refused `engine run` (stderr), without the summary. */
const diagnosticLines = (text: string) => text.split('\n').filter((l) => l && !/problem\(s\)/.test(l));

/** A project with the shipped values (environments included) and one new connector, `credit-bureau`. */
function creditBureauProject(): string {
  const root = tmpProject({
    'values/credit-bureau-v1.values.yaml': 'creditbureau:\n  baseUrl: ${creditbureau-base-url}\n',
    'routes/credit-bureau/get-report.yaml': [
      'id: get-credit-report',
      'values: credit-bureau-v1',
      'from:',
      '  http: { method: GET, path: /credit-reports }',
      'steps:',
      '  - to-http:',
      '      method: GET',
      "      url: '{{creditbureau.baseUrl}}/reports'",
      '',
    ].join('\n'),
  });
  cpSync('values', join(root, 'values'), { recursive: true, dereference: true });
  return root;
}

describe('engine lint --env agrees with engine run --env', () => {
  it('production without keys: each missing key once (16 keys, 16 diagnostics), the same lines from lint and run, exit 1', async () => {
    const lint = await engineCli(['lint', 'routes/', '--env', 'production'], { env: NO_KEYS, timeoutMs: 90_000 });
    const run = await engineCli(['run', 'routes/', '--env', 'production', '--port', '0'], {
      env: NO_KEYS,
      timeoutMs: 90_000,
    });
    expect(lint.code).toBe(1);
    expect(run.code).toBe(1);
    const lines = diagnosticLines(lint.stdout);
    // pinned: one diagnostic per key, nothing the missing values break on top (it was 43 for 16 keys)
    expect(lines).toHaveLength(16);
    expect(lint.stdout.endsWith('\n16 problem(s)\n')).toBe(true);
    const keys = lines.map((l) => /environmental key '([a-z0-9-]+)' is not set/.exec(l)?.[1]);
    expect(new Set(keys).size).toBe(16);
    expect(keys.map((k) => k!.toUpperCase().replace(/-/g, '_')).sort()).toEqual(Object.keys(DEPLOYMENT_KEYS).sort());
    // each at the values file line naming it, with where it is used and how to set it
    expect(lines).toContain(
      "values/foreign-exchange-v1.values.yaml:6:12 environmental key 'hubvendor-base-url' is not set " +
        "(property 'hubvendor.baseUrl', used at routes/connector.yaml:23:15; also named by 'hubvendor.baseUrl' at values/v2/payment-v2.values.yaml:7:12); " +
        "set HUBVENDOR_BASE_URL in the environment, put a file named 'hubvendor-base-url' in the --secrets directory, or pass --set hubvendor-base-url=...",
    );
    expect(diagnosticLines(run.stderr)).toEqual(lines);
    expect(run.stderr.endsWith('engine: 16 problem(s); not starting\n')).toBe(true);
  }, 120_000);

  it('production with the keys given (process environment and --secrets): lint passes', async () => {
    const secrets = tmpProject({
      'achvendor-client-key': DEPLOYMENT_KEYS.ACHVENDOR_CLIENT_KEY + '\n',
      'hubvendor-amqp-password': DEPLOYMENT_KEYS.HUBVENDOR_AMQP_PASSWORD,
    });
    const env = { ...DEPLOYMENT_KEYS, ACHVENDOR_CLIENT_KEY: undefined, HUBVENDOR_AMQP_PASSWORD: undefined };
    const lint = await engineCli(['lint', 'routes/', '--env', 'production', '--secrets', secrets], { env });
    expect(lint).toMatchObject({ code: 0, stdout: 'no problems\n' });
    // the secrets directory is what gave the two: without it, those two and only those
    const without = await engineCli(['lint', 'routes/', '--env', 'production'], { env });
    expect(diagnosticLines(without.stdout).map((l) => /key '([a-z-]+)'/.exec(l)?.[1])).toEqual([
      'achvendor-client-key',
      'hubvendor-amqp-password',
    ]);
  }, 90_000);

  it('a new connector whose key the sandbox does not set: lint --env sandbox refuses it as run does; with the key in --secrets both accept', async () => {
    const root = creditBureauProject();
    const expected =
      "values/credit-bureau-v1.values.yaml:2:12 environmental key 'creditbureau-base-url' is not set " +
      "(property 'creditbureau.baseUrl', used at routes/credit-bureau/get-report.yaml:8:12); " +
      "set CREDITBUREAU_BASE_URL in the environment, put a file named 'creditbureau-base-url' in the --secrets directory, or pass --set creditbureau-base-url=...";
    const lint = await engineCli(['lint', 'routes', '--env', 'sandbox'], { cwd: root });
    expect(lint).toMatchObject({ code: 1, stdout: `${expected}\n1 problem(s)\n` });
    const refused = await engineStarts(['routes', '--env', 'sandbox', '--port', '0'], { cwd: root });
    expect(refused).toMatchObject({ started: false, code: 1 });
    expect(refused.stderr).toBe(`${expected}\nengine: 1 problem(s); not starting\n`);

    const secrets = join(root, 'secrets');
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'creditbureau-base-url'), 'https://bureau.example.test\n');
    const args = ['routes', '--env', 'sandbox', '--secrets', 'secrets'];
    expect(await engineCli(['lint', ...args], { cwd: root })).toMatchObject({ code: 0, stdout: 'no problems\n' });
    expect(await engineStarts([...args, '--port', '0'], { cwd: root })).toMatchObject({ started: true });
  }, 120_000);

  it("the sandbox's simulator references resolve in lint (no key reported missing); a simulator that does not exist is refused by both", async () => {
    expect(await engineCli(['lint', 'routes/', '--env', 'sandbox'], { env: NO_KEYS, timeoutMs: 90_000 })).toMatchObject(
      { code: 0, stdout: 'no problems\n' },
    );
    const args = [
      'routes/hubvendor-foreign-exchange',
      '--env',
      'sandbox',
      '--set',
      'hubvendor-base-url=simulator:hubvendr',
    ];
    const expected =
      "values/foreign-exchange-v1.values.yaml:6:12 environmental key 'hubvendor-base-url' names simulator 'hubvendr', which is not running " +
      '(simulators: eventhub, amqp, hubvendor, idp, platform, screenvendor, achvendor) ' +
      "(property 'hubvendor.baseUrl', used at routes/connector.yaml:23:15); set HUBVENDOR_BASE_URL in the environment, " +
      "put a file named 'hubvendor-base-url' in the --secrets directory, or pass --set hubvendor-base-url=...";
    expect(await engineCli(['lint', ...args])).toMatchObject({ code: 1, stdout: `${expected}\n1 problem(s)\n` });
    const run = await engineStarts([...args, '--port', '0']);
    expect(run).toMatchObject({ started: false, code: 1 });
    expect(run.stderr).toBe(`${expected}\nengine: 1 problem(s); not starting\n`);
  }, 120_000);

  it('without --env, lint checks the project alone: keys are not resolved', async () => {
    expect(await engineCli(['lint', 'routes/'], { env: NO_KEYS, timeoutMs: 90_000 })).toMatchObject({
      code: 0,
      stdout: 'no problems\n',
    });
  }, 90_000);
});
