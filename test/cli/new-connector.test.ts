// `engine new connector NAME --vendor V` in a scratch copy of the project: the connector it writes
// passes `engine lint` and `engine test`, and runs under the sandbox with its test's stubs as the
// vendor (`engine run --stubs`); it never writes over a file, and refuses names that are not kebab-case.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { cpSync, mkdtempSync, rmSync, symlinkSync, existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { engineCli } from '../helpers/cli.ts';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'engine-new-'));
  for (const f of ['bin', 'engine', 'packages', 'sandbox', 'routes', 'values', 'schemas', 'transforms'])
    cpSync(resolve(f), join(root, f), { recursive: true, dereference: true });
  for (const f of ['package.json', 'tsconfig.json']) cpSync(resolve(f), join(root, f));
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cli = (args: string[]) => engineCli(args, { cwd: root, timeoutMs: 120_000 });

describe('engine new connector', () => {
  it('writes a connector that lints, passes its route tests and serves under the sandbox with its stubs', async () => {
    const made = await cli(['new', 'connector', 'credit-report', '--vendor', 'bureau']);
    expect(made.code).toBe(0);
    for (const f of [
      'routes/bureau-credit-report/connector.yaml',
      'routes/bureau-credit-report/credit-report.yaml',
      'routes/bureau-credit-report/schemas/credit-report-request.schema.json',
      'routes/bureau-credit-report/credit-report-response.jsonata',
      'routes/bureau-credit-report/tests/credit-report.yaml',
      'values/credit-report-v1.values.yaml',
      'transforms/bureau/transform-bureau-error-details.json',
      'docs/connectors/credit-report.md',
    ])
      expect(existsSync(join(root, f)), f).toBe(true);
    // what else a deployment needs, said rather than left to be found
    expect(made.stdout).toMatch(/the key bureau-base-url .* no secret/);
    // the overlays' mounts and secrets are derived, never edited by hand
    expect(made.stdout).toMatch(
      /bureau-credit-report in the connectors: list .*\n\s+node bin\/engine\.js deploy-files /,
    );
    expect(await cli(['lint', 'routes/'])).toMatchObject({ code: 0, stdout: 'no problems\n' });
    const tested = await cli(['test', 'routes/bureau-credit-report']);
    expect(tested.stdout).toMatch(/3 passed, 0 failed/);
    expect(tested.code).toBe(0);

    const p = spawn(
      process.execPath,
      [
        'bin/engine.js',
        'run',
        'routes/',
        '--env',
        'sandbox',
        '--port',
        '0',
        '--stubs',
        'routes/bureau-credit-report/tests/credit-report.yaml',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const url = await new Promise<string>((done, fail) => {
        let log = '';
        const t = setTimeout(() => fail(new Error(`no start\n${log}`)), 90_000);
        const on = (c: Buffer) => {
          log += c;
          const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)".*"msg":"engine started"/.exec(log);
          if (m) {
            clearTimeout(t);
            done(m[1]);
          }
        };
        p.stdout!.on('data', on);
        p.stderr!.on('data', on);
        p.on('close', () => fail(new Error(`ended before it started\n${log}`)));
      });
      const res = await fetch(`${url}/credit-report`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ reference: 'REF-1' }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ reference: 'REF-1', status: 'ACCEPTED' });
    } finally {
      p.kill('SIGTERM');
    }
  }, 300_000);

  it('never writes over a file, and refuses a name that is not kebab-case', async () => {
    const again = await cli(['new', 'connector', 'credit-report', '--vendor', 'bureau']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not writing over values\/credit-report-v1\.values\.yaml/);
    const bad = await cli(['new', 'connector', 'Credit_Report', '--vendor', 'bureau']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/name 'Credit_Report' must be kebab-case/);
  }, 120_000);
});
