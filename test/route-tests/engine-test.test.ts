// `engine test` as users run it: the shipped route tests pass, and a broken expectation fails
// with the file:line of that expectation and a diff, exit code 1 and the N passed, N failed line.
import { it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parse, stringify } from 'yaml';
import { join, resolve } from 'node:path';

const ROOT = resolve('.');
const BIN = join(ROOT, 'bin/engine.js');

function run(args: string[], cwd = ROOT): Promise<{ code: number; out: string }> {
  return new Promise((ok) => {
    execFile('node', [BIN, ...args], { cwd, env: { ...process.env, LOG_LEVEL: '' } }, (err, stdout, stderr) => {
      ok({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr });
    });
  });
}

/**
 * Runs `fn` in a project copy that shares everything but the FX route folder, which it may edit (with the
 * client templates it extends).
 */
async function inFxCopy(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'engine-test-'));
  try {
    for (const e of readdirSync(ROOT)) if (e !== 'routes') symlinkSync(join(ROOT, e), join(dir, e));
    cpSync(join(ROOT, 'routes/hubvendor-foreign-exchange'), join(dir, 'routes/hubvendor-foreign-exchange'), {
      recursive: true,
    });
    // the client templates the FX connector extends (the others would be templates nobody extends)
    const templates = parse(readFileSync(join(ROOT, 'routes/connector.yaml'), 'utf8')) as {
      clients: Record<string, unknown>;
    };
    const { hubvendor, 'seed-http': seed } = templates.clients;
    writeFileSync(join(dir, 'routes/connector.yaml'), stringify({ clients: { 'seed-http': seed, hubvendor } }));
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it('the shipped route tests pass', async () => {
  const r = await run(['test', 'routes/']);
  expect(r.out).toMatch(/\b(\d+) passed, 0 failed/);
  expect(Number(/(\d+) passed/.exec(r.out)![1])).toBeGreaterThanOrEqual(30);
  expect(r.code).toBe(0);
}, 60_000);

it('a broken expectation fails with its file:line and a diff', async () => {
  await inFxCopy(async (dir) => {
    const file = join(dir, 'routes/hubvendor-foreign-exchange/tests/get-exchange-rate.yaml');
    const text = readFileSync(file, 'utf8');
    // the expectation's middleRate (the second one: the first is the stub's answer)
    const at = text.lastIndexOf('        middleRate: 1.085\n');
    expect(at).toBeGreaterThan(text.indexOf('expect:'));
    const broken =
      text.slice(0, at) + '        middleRate: 1.2\n' + text.slice(at + '        middleRate: 1.085\n'.length);
    writeFileSync(file, broken);
    const line = broken.split('\n').findIndex((l) => l === '        middleRate: 1.2') + 1;
    const r = await run(['test', 'routes/', '--filter', 'maps the vendor rate'], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `FAIL  routes/hubvendor-foreign-exchange/tests/get-exchange-rate.yaml:${line} maps the vendor rate`,
    );
    expect(r.out).toContain('body.middleRate:\n          - 1.2\n          + 1.085');
    expect(r.out).toContain('0 passed, 1 failed');
    const json = await run(['test', 'routes/', '--filter', 'maps the vendor rate', '--reporter', 'json'], dir);
    expect(JSON.parse(json.out)).toMatchObject({
      passed: 0,
      failed: 1,
      cases: [{ ok: false, failures: [{ line, message: 'body differs' }] }],
    });
  });
}, 60_000);

it('lint reports a typo in a test file with file:line:col and a suggestion, and does not load it as a route', async () => {
  await inFxCopy(async (dir) => {
    const clean = await run(['lint', 'routes/'], dir);
    expect(clean.out).toContain('no problems');
    const file = join(dir, 'routes/hubvendor-foreign-exchange/tests/get-exchange-rate.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('      calls: { hubvendor-forex: 0 }', '      cals: { hubvendor-forex: 0 }'),
    );
    const r = await run(['lint', 'routes/'], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /get-exchange-rate\.yaml:\d+:7 unknown key 'cals' in route test file; did you mean 'calls'\?/,
    );
    expect(r.out).toContain('1 problem(s)');
  });
}, 60_000);

it('a test file that does not parse fails alone: the other test files of its folder still run', async () => {
  await inFxCopy(async (dir) => {
    writeFileSync(
      join(dir, 'routes/hubvendor-foreign-exchange/tests/broken.yaml'),
      'tests:\n  - name: x\n    bad: [\n',
    );
    const r = await run(['test', 'routes/'], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL  routes\/hubvendor-foreign-exchange\/tests\/broken\.yaml:\d+ \(file\)/);
    expect(r.out).not.toContain('the engine did not start');
    const passed = Number(/(\d+) passed, 1 failed/.exec(r.out)?.[1]);
    expect(passed).toBeGreaterThanOrEqual(10);
  });
}, 60_000);
