// `engine eval`, run as users run it (node bin/engine.js eval ...): JSON in (stdin or a file),
// the engine's functions bound, JSON out; a bad expression or input is a clear error, exit 1.
import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpProject } from '../helpers/tmp-project.ts';

function engine(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['bin/engine.js', 'eval', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c) => {
      stdout += c;
    });
    p.stderr.on('data', (c) => {
      stderr += c;
    });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(stdin);
  });
}

describe('engine eval', () => {
  it('evaluates an expression against stdin with the engine functions bound', async () => {
    const r = await engine(
      ['-e', "{'iban': $ibanValid(body.iban), 'aba': $abaValid(body.aba), 'id': $stableId('x', body.iban)}"],
      JSON.stringify({ body: { iban: 'DE89370400440532013000', aba: '123456789' } }),
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ iban: true, aba: false });
    expect(out.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('evaluates a transforms file against an input file, wrapped as the body with --body', async () => {
    const dir = tmpProject({
      'm.jsonata': "(\n  $total := $sum(body.items.amount);\n  { 'total': $total, 'count': $count(body.items) }\n)\n",
      'in.json': '{"items":[{"amount":2},{"amount":3}]}',
    });
    const r = await engine(['-f', join(dir, 'm.jsonata'), '-i', join(dir, 'in.json'), '--body', '--compact']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"total":5,"count":2}\n');
  });

  it('names the line and column of a syntax error in a file, exit 1', async () => {
    const dir = tmpProject({ 'bad.jsonata': "{\n  'a': body.x +\n}\n" });
    const r = await engine(['-f', join(dir, 'bad.jsonata')], '{}');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bad\.jsonata:3:1 JSONata: .*\n {2}\}\n {2}\^/);
  });

  it('refuses input that is not JSON, and an evaluation error, each with exit 1', async () => {
    const notJson = await engine(['-e', 'a'], '{"a": [1,');
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/engine eval: the input stdin is not JSON/);
    const dir = tmpProject({});
    writeFileSync(join(dir, 'in.json'), '{"s": "x"}');
    const failed = await engine(['-e', 's + 1', '-i', join(dir, 'in.json')]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/<expression>:1:\d+ evaluation failed: T2001/);
  });
});

describe('engine eval: input the expression does not get is said, exit 1', () => {
  const example = `e.g. echo '{"iban": "DE89370400440532013000"}' | engine eval --body -e '$ibanValid(body.iban)'`;

  it('a bare body without --body, read as body.x: says the input has no "body" and shows --body (it answered false, exit 0)', async () => {
    const r = await engine(['-e', '$ibanValid(body.iban)'], '{"iban": "DE89370400440532013000"}');
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'engine eval: the expression reads body, but the input has no "body": without --body the input is the exchange ' +
        `as a route step sees it ({"body": ..., "vars": ...}). For a bare request body add --body, ${example}\n`,
    });
    // the same input with --body, or as the exchange, answers
    expect(await engine(['--body', '-e', '$ibanValid(body.iban)'], '{"iban": "DE89370400440532013000"}')).toMatchObject(
      {
        code: 0,
        stdout: 'true\n',
      },
    );
    // "body" in a string is no read of the body
    expect(await engine(['-c', '-e', '{"body": a}'], '{"a": 1}')).toMatchObject({ code: 0, stdout: '{"body":1}\n' });
  });

  it('no input at all (empty standard input): says what to give, with an example (it answered nothing, exit 0)', async () => {
    for (const expr of ['body.x', 'x']) {
      const r = await engine(['-e', expr], '');
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr: `engine eval: no input: give the JSON the expression reads on standard input or with -i FILE, ${example}\n`,
      });
    }
    // an expression that reads no input still answers without one
    expect(await engine(['-e', '1 + 1'], '')).toMatchObject({ code: 0, stdout: '2\n' });
  });
});

describe('engine eval --values', () => {
  it("resolves a file's {{properties}} from the values file named, with --set as engine run takes it; without --values it says what to give", async () => {
    const batch = JSON.stringify({ batch: { sec_code: 'XYZ' } });
    const rule = 'routes/achvendor-batch-payment/rules/sec-code.jsonata';
    const none = await engine(['-f', rule, '--body', '-c'], batch);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `engine eval: ${rule} uses {{sec.code.supported}}: give --values NAME, the values file of the routes that use it (and --env NAME for an environment's values)\n`,
    );
    // the shipped values: XYZ is no supported SEC code
    const shipped = await engine(['-f', rule, '--body', '-c', '--values', 'batch-payments-v0'], batch);
    expect(shipped).toMatchObject({
      code: 0,
      stdout: '{"field":"/sec_code","message":"SEC code XYZ is not supported; supported: PPD, CCD, CTX, WEB, TEL"}\n',
    });
    const set = await engine(
      ['-f', rule, '--body', '-c', '--values', 'batch-payments-v0', '--set', 'sec.code.supported=PPD,XYZ'],
      batch,
    );
    expect(set.code).toBe(0);
    expect(set.stderr).toBe('(no result: the expression gave undefined)\n');
    const unknown = await engine(['-f', rule, '--body', '--values', 'batch-payment-v0'], batch);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("values file 'batch-payment-v0' not found under values/");
  });
});
