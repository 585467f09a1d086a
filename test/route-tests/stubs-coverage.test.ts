// `engine test` on a small project (coverage-project/: one route with a choice, a vendor call and
// two on-exception handlers): a stub or `calls` under a name no step calls is an error at its
// line with the nearest target; a target the case did not script fails the case, even when
// another case scripted it; `--coverage` counts the steps, branches and handlers reached.
import { it, expect, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startProject } from '../helpers/project-engine.ts';

const BIN = resolve('bin/engine.js');
const FIXTURE = resolve('test/route-tests/coverage-project');
const TESTS = 'routes/quotes/tests/quote.yaml';
const made: string[] = [];

afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function run(args: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((ok) => {
    execFile('node', [BIN, 'test', ...args], { cwd, env: { ...process.env, LOG_LEVEL: '' } }, (e, stdout, stderr) => {
      ok({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, out: stdout, err: stderr });
    });
  });
}

/** A copy of the fixture whose test file is `tests` (the fixture's own when absent). */
function project(tests?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-stubs-'));
  made.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  if (tests !== undefined) writeFileSync(join(dir, TESTS), tests);
  return dir;
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

it('a file-level stub under a name no target has fails every case at its line, suggesting the target', async () => {
  const tests = `stubs:
  quote-vendr: { body: { price: 1 } }
tests:
  - name: a large quote
    request: { path: /quotes, body: { amount: 5000 } }
    expect: { status: 200 }
`;
  const r = await run(['routes'], project(tests));
  expect(r.code).toBe(1);
  expect(r.out).toContain(
    `${TESTS}:2:3 stub 'quote-vendr' names no to-http target of the routes under test; did you mean 'quote-vendor'?`,
  );
  expect(r.out).toContain('0 passed, 1 failed');
}, 60_000);

it("a case's stub or calls under an unknown name is an error at its line; eventhub is always a name", async () => {
  const tests = `tests:
  - name: stub typo
    stubs:
      quote-vendorr: { body: {} }
    request: { path: /quotes, body: { amount: 5 } }
    expect: { status: 200 }
  - name: calls typo
    stubs:
      quote-vendor: { body: {} }
      eventhub: { status: 202 }
    request: { path: /quotes, body: { amount: 5 } }
    expect: { status: 200, calls: { qoute-vendor: 1 } }
  - name: no name near any target
    stubs:
      ledger: { body: {} }
    request: { path: /quotes, body: { amount: 5 } }
    expect: { status: 200 }
`;
  const r = await run(['routes'], project(tests));
  expect(r.code).toBe(1);
  expect(r.out).toContain(
    `${TESTS}:4:7 stub 'quote-vendorr' names no to-http target of the routes under test; did you mean 'quote-vendor'?`,
  );
  expect(r.out).toContain(
    `${TESTS}:${lineOf(tests, 'qoute-vendor')}:37 calls 'qoute-vendor' names no to-http target of the routes under test; did you mean 'quote-vendor'?`,
  );
  expect(r.out).toContain(
    "stub 'ledger' names no to-http target of the routes under test; the targets are quote-vendor (and eventhub)",
  );
  expect(r.out).toContain('0 passed, 3 failed');
}, 60_000);

it('engine lint reports a stub or calls name no target has, at its line, as engine test does', async () => {
  const tests = `stubs:
  quote-vendr: { body: { price: 1 } }
tests:
  - name: calls typo
    stubs:
      quote-vendor: { body: {} }
    request: { path: /quotes, body: { amount: 5 } }
    expect: { status: 200, calls: { qoute-vendor: 1 } }
`;
  const dir = project(tests);
  const lint = await new Promise<{ code: number; out: string }>((ok) =>
    execFile('node', [BIN, 'lint', 'routes'], { cwd: dir }, (e, stdout, stderr) =>
      ok({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, out: stdout + stderr }),
    ),
  );
  expect(lint.code).toBe(1);
  expect(lint.out).toContain(
    `${TESTS}:2:3 stub 'quote-vendr' names no to-http target of the routes under test; did you mean 'quote-vendor'?`,
  );
  expect(lint.out).toContain(
    `${TESTS}:${lineOf(tests, 'qoute-vendor')}:37 calls 'qoute-vendor' names no to-http target of the routes under test; did you mean 'quote-vendor'?`,
  );
  // the fixture's own test file names its targets right: lint is clean
  const clean = await new Promise<number>((ok) =>
    execFile('node', [BIN, 'lint', 'routes'], { cwd: project() }, (e) => ok(e ? 1 : 0)),
  );
  expect(clean).toBe(0);
}, 60_000);

it('a target the case does not script fails it, naming the target, though another case scripted it', async () => {
  // the second case used to get a silent `200 {}` from the first case's stub server
  const tests = `tests:
  - name: scripted
    stubs:
      quote-vendor: { body: { price: 1 } }
    request: { path: /quotes, body: { amount: 5 } }
    expect: { status: 200 }
  - name: not scripted
    request: { path: /quotes, body: { amount: 5 } }
    expect: { status: 502, calls: { quote-vendor: 1 } }
`;
  const r = await run(['routes'], project(tests));
  expect(r.code).toBe(1);
  expect(r.out).toContain(`ok    ${TESTS}:2 scripted`);
  expect(r.out).toContain(`FAIL  ${TESTS}:7 not scripted`);
  expect(r.out).toContain(
    "to-http target(s) 'quote-vendor' called without a stub; add stubs: { quote-vendor: ... } to the case",
  );
  // the request still counts for `calls`: the only failure is the missing stub
  expect(r.out).not.toContain("'quote-vendor' got");
  expect(r.out).toContain('1 passed, 1 failed');
}, 60_000);

it('--coverage counts the steps, choice branches and on-exception handlers reached, with their lines', async () => {
  const dir = project();
  const r = await run(['routes', '--coverage', '--coverage-json', 'out/coverage.json'], dir);
  expect(r.code).toBe(0);
  const route = readFileSync(join(dir, 'routes/quotes/quote.yaml'), 'utf8');
  expect(r.out).toContain(
    [
      'coverage: the steps, choice branches and on-exception handlers the cases reached',
      'route    steps  branches  handlers',
      'quote      4/4       2/3       1/2   77.8%',
      'total      4/4       2/3       1/2   77.8%',
      'not reached (2):',
      `  routes/quotes/quote.yaml:${lineOf(route, "body.currency = 'XXX'")} quote steps[0].choice.when[1] (when body.currency = 'XXX')`,
      `  routes/quotes/quote.yaml:${lineOf(route, 'GC027')} quote on-exception[1] (any error)`,
      '3 passed, 0 failed',
    ].join('\n'),
  );
  const json = JSON.parse(readFileSync(join(dir, 'out/coverage.json'), 'utf8'));
  expect(json).toMatchObject({
    reached: 7,
    total: 9,
    percent: 77.8,
    routes: [
      {
        route: 'quote',
        file: 'routes/quotes/quote.yaml',
        steps: { reached: 4, total: 4 },
        branches: { reached: 2, total: 3 },
        handlers: { reached: 1, total: 2 },
      },
    ],
  });
  expect(json.routes[0].missed.map((m: { path: string }) => m.path)).toEqual([
    'steps[0].choice.when[1]',
    'on-exception[1]',
  ]);
  // a case that takes the other branch and the catch-all handler covers everything
  const more = `${readFileSync(join(dir, TESTS), 'utf8')}
  - name: an unknown currency stops the route before the vendor
    request: { path: /quotes, body: { amount: 5, currency: XXX } }
    expect: { status: 200, calls: { quote-vendor: 0 } }

  - name: a vendor 500 is GC027
    stubs:
      quote-vendor: { status: 500 }
    request: { path: /quotes, body: { amount: 5 } }
    expect: { status: 502 }
`;
  writeFileSync(join(dir, TESTS), more);
  const all = await run(['routes', '--coverage'], dir);
  expect(all.out).toContain('quote      4/4       3/3       2/2    100%');
  expect(all.out).not.toContain('not reached');
}, 60_000);

it('--coverage-min fails below the threshold; --reporter json carries the coverage; without --coverage there is none', async () => {
  const dir = project();
  const below = await run(['routes', '--coverage-min', '80'], dir);
  expect(below.code).toBe(1);
  expect(below.err).toContain('engine test: coverage 77.8% is below --coverage-min 80');
  const above = await run(['routes', '--coverage-min', '77.7'], dir);
  expect(above.code).toBe(0);
  // per route: each route below the threshold is named with its file
  const route = await run(['routes', '--coverage-min-route', '80'], dir);
  expect(route.code).toBe(1);
  expect(route.err).toContain(
    'engine test: route quote (routes/quotes/quote.yaml) reached 77.8% of its points, below --coverage-min-route 80',
  );
  expect((await run(['routes', '--coverage-min-route', '77.7'], dir)).code).toBe(0);
  const bad = await run(['routes', '--coverage-min', 'lots'], dir);
  expect(bad.code).not.toBe(0);
  expect(bad.err).toContain("a percentage from 0 to 100, got 'lots'");
  const json = JSON.parse((await run(['routes', '--coverage', '--reporter', 'json'], dir)).out);
  expect(json).toMatchObject({ passed: 3, failed: 0, coverage: { reached: 7, total: 9 } });
  const plain = JSON.parse((await run(['routes', '--reporter', 'json'], dir)).out);
  expect(plain).toMatchObject({ passed: 3, failed: 0 });
  expect(plain.coverage).toBeUndefined();
}, 60_000);

it('an engine that is not asked for coverage counts nothing: its routes run as compiled', async () => {
  const engine = await startProject(FIXTURE);
  try {
    expect(engine.routes.map((r) => [r.id, r.handlers.length, r.handlerPoints])).toEqual([['quote', 2, undefined]]);
    expect(engine.services.coverage).toBeUndefined();
  } finally {
    await engine.close();
  }
});
