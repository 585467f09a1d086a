// A misspelt values file name or property under `properties:` of an environment file would change
// nothing: `engine lint` and `engine run` refuse it at the environment file's line:col with a
// suggestion, by the rules of `--set <file>:<prop>`. New entries of a map-valued property and new
// properties a loaded route's placeholder uses are accepted, and every shipped environment lints clean.

import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { lintProject } from '../../engine/engine.ts';
import { formatDiagnostic } from '../../engine/core/diagnostics.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { DEPLOYMENT_KEYS } from '../helpers/deployment-keys.ts';

const run = promisify(execFile);
const ENGINE = resolve('bin/engine.js');

/** A copy of the project's values with `edit` applied to the sandbox environment file. */
function copiedValues(edit: (text: string) => string): { dir: string; envFile: string; text: string } {
  const root = mkdtempSync(join(tmpdir(), 'engine-env-check-'));
  const dir = join(root, 'values');
  cpSync('values', dir, { recursive: true, dereference: true });
  const envFile = join(dir, 'environments', 'sandbox.yaml');
  const text = edit(readFileSync(envFile, 'utf8'));
  writeFileSync(envFile, text);
  return { dir, envFile, text };
}

/** `file:line:col` of the first line of `text` containing `needle`, at the column of `needle`. */
function at(file: string, text: string, needle: string): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  expect(i, needle).toBeGreaterThanOrEqual(0);
  return `${file}:${i + 1}:${lines[i].indexOf(needle) + 1}`;
}

async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [ENGINE, ...args], { timeout: 60_000, env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, ...r }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

const fileOf = (dir: string, name: string) => relative(process.cwd(), join(dir, `${name}.values.yaml`));

describe('environment file properties (copied project, engine CLI)', () => {
  it('a misspelt property fails lint at its line:col with a did-you-mean, and engine run refuses to start with the same line', async () => {
    const { dir, envFile, text } = copiedValues((t) =>
      t.replace("    routing.number: '021000021'", "    routing.nubmer: '021000021'"),
    );
    const expected =
      `${at(envFile, text, 'routing.nubmer')} 'routing.nubmer' would change nothing in ${fileOf(dir, 'batch-payments-v0')}: ` +
      "no property 'routing.nubmer'; did you mean 'routing.number'? (at properties.batch-payments-v0.routing.nubmer)";
    // the misspelt override leaves routing.number to its environmental key, which the sandbox does not set
    const missing = `${fileOf(dir, 'batch-payments-v0')}:29:11 environmental key 'achvendor-routing-number' is not set`;
    const lint = await cli(['lint', 'routes/achvendor-batch-payment', '--env', 'sandbox', '--values', dir]);
    expect(lint.code).toBe(1);
    const lines = lint.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(lines.slice(1)).toEqual([expected, '2 problem(s)', '']);
    const start = await cli([
      'run',
      'routes/achvendor-batch-payment',
      '--env',
      'sandbox',
      '--values',
      dir,
      '--port',
      '0',
    ]);
    expect(start.code, 'engine run started').toBe(1);
    // lint --env says what the start says, line for line
    expect(start.stderr).toBe(`${lines.slice(0, 2).join('\n')}\nengine: 2 problem(s); not starting\n`);
  }, 90_000);

  it('a misspelt values file name fails lint at its key with a did-you-mean', async () => {
    const { envFile, text, dir } = copiedValues((t) =>
      t.replace('  inbound-batch-payments-v0:', '  inbound-batch-payment-v0:'),
    );
    const lint = await cli(['lint', 'routes/achvendor-batch-payment-inbound', '--env', 'sandbox', '--values', dir]);
    expect(lint.code).toBe(1);
    expect(lint.stdout).toBe(
      `${at(envFile, text, 'inbound-batch-payment-v0:')} there is no values file 'inbound-batch-payment-v0': ` +
        "its properties would change nothing; did you mean 'inbound-batch-payments-v0'? (at properties.inbound-batch-payment-v0)\n1 problem(s)\n",
    );
  }, 60_000);

  it("accepts a new map entry (a gateway subscription) and a new property a loaded route's placeholder uses; their typos are refused", async () => {
    const overrides = (sub: string, tag: string) => (t: string) =>
      t.replace('  gateway:\n', `  gateway:\n    gateway.subscriptions.sandbox.${sub}.tools: [getExchangeRate]\n`) +
      `  foreign-exchange-v1:\n    ${tag}: audit-7\n`;
    const routes = join(mkdtempSync(join(tmpdir(), 'engine-env-routes-')), 'routes');
    mkdirSync(routes);
    writeFileSync(
      join(routes, 'audit.yaml'),
      `id: fx-audit\nvalues: foreign-exchange-v1\nfrom: { direct: {} }\nsteps:\n  - set: { values: { vars.tag: "'{{fx.audit.tag}}'" } }\n`,
    );
    // crm-agent is three edits from demo-agent, yet a name of its own: accepted
    for (const sub of ['mobile-banking', 'crm-agent']) {
      const good = copiedValues(overrides(sub, 'fx.audit.tag'));
      expect(await cli(['lint', routes, '--env', 'sandbox', '--values', good.dir]), sub).toMatchObject({
        code: 0,
        stdout: 'no problems\n',
      });
    }

    const bad = copiedValues(overrides('demo-agnet', 'fx.audit.tga'));
    const lint = await cli(['lint', routes, '--env', 'sandbox', '--values', bad.dir]);
    expect(lint.code).toBe(1);
    const lines = lint.stdout.split('\n');
    expect(lines).toContain(
      `${at(bad.envFile, bad.text, 'gateway.subscriptions.sandbox.demo-agnet')} 'gateway.subscriptions.sandbox.demo-agnet.tools' would change nothing in ${fileOf(bad.dir, 'gateway')}: ` +
        "no property 'gateway.subscriptions.sandbox.demo-agnet.tools'; did you mean 'gateway.subscriptions.sandbox.demo-agent.tools'? (at properties.gateway.gateway.subscriptions.sandbox.demo-agnet.tools)",
    );
    expect(lines).toContain(
      `${at(bad.envFile, bad.text, 'fx.audit.tga')} 'fx.audit.tga' would change nothing in ${fileOf(bad.dir, 'foreign-exchange-v1')}: ` +
        "no property 'fx.audit.tga'; did you mean 'fx.audit.tag'? (at properties.foreign-exchange-v1.fx.audit.tga)",
    );
  }, 60_000);

  it.each(['sandbox', 'development', 'staging', 'production'])(
    'the shipped %s environment lints clean (given the keys a deployment sets)',
    async (env) => {
      // lint and start run the same check (engine.ts prepare), keys included, so a clean lint is a clean start
      const given = env === 'sandbox' ? {} : DEPLOYMENT_KEYS;
      expect(await cli(['lint', 'routes/', '--env', env], given)).toMatchObject({ code: 0, stdout: 'no problems\n' });
    },
    60_000,
  );
});

describe('environment file properties (rules)', () => {
  const VALUES = 'hub:\n  timeout: 5000\n  paths.rates: /rates\nconnector: demo\n';
  const ROUTE =
    'id: r\nvalues: demo-v1\nfrom: { direct: {} }\nsteps:\n  - set: { values: { vars.t: "{{hub.timeout}} * 2" } }\n';
  async function lint(envFile: string): Promise<string[]> {
    const root = tmpProject({
      'values/demo-v1.values.yaml': VALUES,
      'values/v2/pay-v2.values.yaml': 'retryFlag: true\n',
      'values/environments/dev.yaml': envFile,
      'routes/r.yaml': ROUTE,
    });
    const diags = await lintProject({
      routes: ['routes'],
      root,
      env: 'dev',
      logger: createLogger('silent'),
      processEnv: {},
    });
    return diags.map((d) => formatDiagnostic({ ...d, file: d.file.replace(/^.*values\//, 'values/') }));
  }

  it("'*' applies to the files that have a property, so one must have it", async () => {
    expect(await lint("properties:\n  '*':\n    hub.timeout: 10\n    retryFlag: false\n")).toEqual([]);
    expect(await lint("properties:\n  '*':\n    hub.timeuot: 10\n")).toEqual([
      "values/environments/dev.yaml:3:5 'hub.timeuot' under '*' would change nothing: no values file has it; did you mean 'hub.timeout'? (at properties.*.hub.timeuot)",
    ]);
  });

  it('nested and dotted forms alike, positioned at the misspelt key; full and base names of a values file in a folder', async () => {
    expect(
      await lint(
        'properties:\n  demo-v1:\n    hub:\n      paths:\n        rates: /r2\n  v2/pay-v2:\n    retryFlag: false\n  pay-v2:\n    retryFlag: false\n',
      ),
    ).toEqual([]);
    const out = await lint('properties:\n  demo-v1:\n    hub:\n      timeot: 10\n  pay-v2:\n    retryFlg: false\n');
    expect(out).toEqual([
      expect.stringMatching(
        /^values\/environments\/dev\.yaml:4:7 'hub\.timeot' would change nothing in .*demo-v1\.values\.yaml: no property 'hub\.timeot'; did you mean 'hub\.timeout'\?/,
      ),
      expect.stringMatching(
        /^values\/environments\/dev\.yaml:6:5 'retryFlg' would change nothing in .*v2\/pay-v2\.values\.yaml: no property 'retryFlg'; did you mean 'retryFlag'\?/,
      ),
    ]);
  });

  it('a group set to a value, and properties that are not a map, are refused; a name with every entry commented out is not', async () => {
    expect(await lint('properties:\n  demo-v1:\n    hub: 5\n')).toEqual([
      expect.stringMatching(
        /^values\/environments\/dev\.yaml:3:5 'hub' would change nothing in .*: 'hub' is a group of properties \(hub\.timeout, hub\.paths\.rates\): set one of them/,
      ),
    ]);
    expect(await lint('properties:\n  demo-v1: 5\n')).toEqual([
      "values/environments/dev.yaml:2:12 the properties of 'demo-v1' must be a map of property: value (at properties.demo-v1)",
    ]);
    expect(await lint('properties: [demo-v1]\n')).toEqual([
      "values/environments/dev.yaml:1:13 'properties' must be a map: a values file name (or '*'), then property: value (at properties)",
    ]);
    expect(await lint('properties:\n  demo-v1:\n    # hub.timeout: 10\n')).toEqual([]);
    expect(await lint('properties:\n  nothing-like-it:\n    a: 1\n')).toEqual([
      "values/environments/dev.yaml:2:3 there is no values file 'nothing-like-it': its properties would change nothing; values files: demo-v1, v2/pay-v2 (at properties.nothing-like-it)",
    ]);
  });
});
