// `npm test` and `npm run test:quick`: vitest, then the route tests (`engine test routes/`) even
// when vitest failed, then one closing line that sums both, the last line of the output (one line):
//   1234 passed, 0 failed, 12 skipped (vitest: 1059 passed, 0 failed, 12 skipped;
//   route tests: 175 passed, 0 failed) in 402 s
// The arguments are vitest's (test:quick names its folders); RUN_ROUTE_TESTS=no leaves out the
// route tests. VITEST_JSON_REPORT, when set, is
// where vitest's JSON report goes (the config adds that reporter); otherwise a temporary file.
// The exit code is 1 when either part failed or did not report.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const started = Date.now();

/** Runs a node program; its output goes through, and `capture` also keeps its standard output. */
function run(args, env, capture = false) {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env,
      stdio: ['inherit', capture ? 'pipe' : 'inherit', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (chunk) => {
      process.stdout.write(chunk);
      out += chunk;
    });
    child.on('close', (code, signal) => done({ code: code ?? (signal ? 1 : 0), out }));
  });
}

const scratch = process.env.VITEST_JSON_REPORT ? undefined : mkdtempSync(join(tmpdir(), 'engine-tests-'));
const report = process.env.VITEST_JSON_REPORT || join(scratch, 'vitest.json');
const vitest = await run([vitestBin, 'run', ...process.argv.slice(2)], { ...process.env, VITEST_JSON_REPORT: report });
// RUN_ROUTE_TESTS=no: vitest alone (CI runs a few vitest files on their own, beside its lint)
const withRoutes = process.env.RUN_ROUTE_TESTS !== 'no';
const routes = withRoutes
  ? await run([join(root, 'bin/engine.js'), 'test', 'routes/'], process.env, true)
  : { code: 0, out: '' };

const parts = [];
let passed = 0;
let failed = 0;
let skipped = 0;
let v;
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  v = { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + (r.numTodoTests ?? 0) };
} catch {
  v = undefined;
}
if (scratch) rmSync(scratch, { recursive: true, force: true });
if (!v) {
  parts.push(`vitest: no report (exit ${vitest.code})`);
  failed += 1;
} else {
  // vitest failing with no failed test (a file that does not load, no file found) is one failure
  const broken = vitest.code !== 0 && v.failed === 0 ? 1 : 0;
  passed += v.passed;
  failed += v.failed + broken;
  skipped += v.skipped;
  parts.push(
    `vitest: ${v.passed} passed, ${v.failed} failed${v.skipped ? `, ${v.skipped} skipped` : ''}` +
      (broken ? ` (exited ${vitest.code} without a failed test: see its output above)` : ''),
  );
}
const summary = [...routes.out.matchAll(/^(\d+) passed, (\d+) failed/gm)].pop();
if (!withRoutes) {
  // not asked for
} else if (!summary) {
  parts.push(`route tests: no summary (exit ${routes.code})`);
  failed += 1;
} else {
  passed += Number(summary[1]);
  failed += Number(summary[2]);
  parts.push(`route tests: ${summary[1]} passed, ${summary[2]} failed`);
}
const seconds = Math.round((Date.now() - started) / 1000);
console.log(
  `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''} (${parts.join('; ')}) in ${seconds} s`,
);
process.exitCode = failed || vitest.code || routes.code ? 1 : 0;
