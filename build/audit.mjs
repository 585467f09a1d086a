// CI (.ci/run): `npm audit --omit=dev` over the production dependencies, failing on every advisory
// that audit-accepted.json does not accept. An accepted advisory names its GHSA id and package,
// why it does not reach the engine, and a review date after which it fails again until someone
// looks at it anew. An audit that cannot ask the registry's advisory service fails too, loudly:
// a supply chain check that passes without having checked anything is worse than none.
//
//   node build/audit.mjs [--report FILE] [--accepted FILE] [--today YYYY-MM-DD]
//
// --report reads a saved `npm audit --json` report instead of running npm (the tests). Exit codes:
// 0 nothing unaccepted, 1 an advisory not accepted (or an acceptance past its review date),
// 2 the audit did not run.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const { values: opts } = parseArgs({
  options: { report: { type: 'string' }, accepted: { type: 'string' }, today: { type: 'string' } },
});
const today = opts.today ?? new Date().toISOString().slice(0, 10);

function runAudit() {
  // the npm running this script where there is one (npm run), else the one on PATH
  const [cmd, pre] = process.env.npm_execpath?.endsWith('.js')
    ? [process.execPath, [process.env.npm_execpath]]
    : ['npm', []];
  const r = spawnSync(cmd, [...pre, 'audit', '--omit=dev', '--json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return { text: r.stdout, stderr: r.stderr ?? '' };
}

// written synchronously: process.exit would cut short what is still queued for a pipe
function didNotRun(why) {
  writeSync(
    2,
    [
      '',
      '!!! npm audit DID NOT RUN: the production dependencies were NOT checked for advisories.',
      `!!! ${why}`,
      "!!! npm audit needs the registry's advisory service (a POST to its audit endpoint); a mirror",
      '!!! that serves only package downloads does not have it. See docs/operations.md, "Dependency audit".',
      '',
    ].join('\n') + '\n',
  );
  process.exit(2);
}

/** The accepted list, each entry complete: an acceptance nobody can review is no acceptance. */
function readAccepted(file) {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const problems = [];
  for (const [i, a] of (doc.accepted ?? []).entries()) {
    for (const k of ['advisory', 'package', 'reason', 'review-by'])
      if (typeof a[k] !== 'string' || !a[k].trim()) problems.push(`${file}: accepted[${i}] has no ${k}`);
    if (a.advisory && !/^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/.test(a.advisory))
      problems.push(`${file}: accepted[${i}].advisory '${a.advisory}' is not a GHSA id`);
    if (a['review-by'] && !/^\d{4}-\d{2}-\d{2}$/.test(a['review-by']))
      problems.push(`${file}: accepted[${i}].review-by '${a['review-by']}' is not YYYY-MM-DD`);
  }
  if (problems.length) {
    writeSync(2, problems.join('\n') + '\n');
    process.exit(1);
  }
  return doc.accepted ?? [];
}

/** One finding per advisory and vulnerable package; `via` entries that are strings only point at another package. */
function findings(report) {
  const out = new Map();
  for (const v of Object.values(report.vulnerabilities ?? {})) {
    for (const via of v.via ?? []) {
      if (typeof via !== 'object') continue;
      const advisory = /GHSA(-[a-z0-9]{4}){3}/.exec(via.url ?? '')?.[0] ?? String(via.source);
      out.set(`${advisory} ${via.name}`, {
        advisory,
        package: via.name,
        severity: via.severity,
        title: via.title,
        range: via.range,
        url: via.url,
      });
    }
  }
  return [...out.values()];
}

const accepted = readAccepted(opts.accepted ?? join(root, 'audit-accepted.json'));
const { text, stderr } = opts.report ? { text: readFileSync(opts.report, 'utf8'), stderr: '' } : runAudit();
let report;
try {
  report = JSON.parse(text);
} catch {
  didNotRun(`npm audit printed no report: ${(stderr || text).trim().split('\n').slice(-3).join(' | ')}`);
}
if (!report.metadata?.vulnerabilities)
  didNotRun(`npm audit answered: ${report.message ?? report.error?.summary ?? JSON.stringify(report).slice(0, 300)}`);

let failed = 0;
const used = new Set();
for (const f of findings(report)) {
  const a = accepted.find((x) => x.advisory === f.advisory && x.package === f.package);
  const what = `${f.advisory} ${f.package}@${f.range} (${f.severity}): ${f.title}`;
  if (a) used.add(a);
  if (a && a['review-by'] >= today) console.log(`accepted until ${a['review-by']}: ${what}\n  why: ${a.reason}`);
  else if (a) {
    failed++;
    console.log(`NOT ACCEPTED (its review date ${a['review-by']} has passed; review it): ${what}`);
  } else {
    failed++;
    console.log(`NOT ACCEPTED: ${what}\n  ${f.url ?? ''}`);
  }
}
for (const a of accepted)
  if (!used.has(a))
    console.log(`note: accepted ${a.advisory} ${a.package} is no longer reported; remove it from audit-accepted.json`);
const m = report.metadata.vulnerabilities;
console.log(
  `npm audit --omit=dev: ${report.metadata.dependencies?.prod ?? '?'} production packages, ${m.total} vulnerable, ${failed} not accepted`,
);
process.exitCode = failed ? 1 : 0;
