// Checks a case's expectations against what happened: the answer, the vendor requests the stubs
// recorded, the events the event hub accepted, the log lines. Each failure carries the YAML path
// of the expectation it breaks, so the report can say file:line.

import { compileExpression, isPromise } from '../expressions/expressions.ts';
import { truthy } from '../steps/truthy.ts';
import { compare, diffLines, type Path } from './match.ts';
import type { CaseAnswer } from './case-input.ts';
import type { RecordedRequest, StubSet } from './stubs.ts';
import type { CaseExpect, VendorRequestExpect } from '../dsl/route-test-schema.ts';

export interface Failure {
  /** YAML path inside the case's `expect` (or the case itself: []) */
  path: Path;
  message: string;
  diff: string[];
}

export interface Observed {
  answer: CaseAnswer;
  stubs: StubSet;
  logs: string[];
}

function fail(path: Path, message: string, diff: string[] = []): Failure {
  return { path, message, diff };
}

/** Scalars as text: a query or header expectation `1` matches the vendor's "1". */
function asText(v: unknown): unknown {
  if (v === null || v === undefined || typeof v === 'object') return v;
  return String(v);
}

function textMap(m: Record<string, unknown>, lowerNames = false): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(m).map(([k, v]) => [lowerNames ? k.toLowerCase() : k, Array.isArray(v) ? v.map(asText) : asText(v)]),
  );
}

function checkRequest(exp: VendorRequestExpect, got: RecordedRequest, path: Path, out: Failure[]): void {
  const what = `request ${Number(path[path.length - 1]) + 1}`;
  if (exp.method && exp.method.toUpperCase() !== got.method)
    out.push(fail([...path, 'method'], `${what}: method`, [`  - ${exp.method.toUpperCase()}`, `  + ${got.method}`]));
  if (exp.path !== undefined && exp.path !== got.path)
    out.push(fail([...path, 'path'], `${what}: path`, [`  - ${exp.path}`, `  + ${got.path}`]));
  const parts: [keyof VendorRequestExpect, unknown, unknown, boolean][] = [
    ['query', exp.query && textMap(exp.query), got.query, false],
    ['headers', exp.headers && textMap(exp.headers, true), got.headers, true],
    ['body', exp.body, got.body, false],
    ['body-contains', exp['body-contains'], got.body, true],
  ];
  for (const [key, expected, actual, subset] of parts) {
    if (expected === undefined) continue;
    const ms = compare(expected, actual, subset);
    if (ms.length) out.push(fail([...path, key, ...ms[0].path], `${what}: ${key} differs`, diffLines(key, ms)));
  }
}

function checkCalls(
  target: string,
  exp: NonNullable<CaseExpect['calls']>[string],
  got: RecordedRequest[],
  path: Path,
  out: Failure[],
): void {
  const requests = Array.isArray(exp) ? exp : typeof exp === 'number' ? undefined : exp.requests;
  const count = typeof exp === 'number' ? exp : Array.isArray(exp) ? exp.length : (exp.count ?? exp.requests?.length);
  if (count !== undefined && count !== got.length) {
    const seen = got.map((r, i) => `  + ${i + 1}. ${r.method} ${r.path} -> ${r.status || 'connection dropped'}`);
    out.push(
      fail(
        typeof exp === 'object' && !Array.isArray(exp) && exp.count !== undefined ? [...path, 'count'] : path,
        `'${target}' got ${got.length} request(s), expected ${count}`,
        seen,
      ),
    );
  }
  const base = Array.isArray(exp) ? path : [...path, 'requests'];
  (requests ?? []).forEach((r, i) => {
    if (got[i]) checkRequest(r, got[i], [...base, i], out);
  });
}

async function checkAssert(expr: string, input: unknown, path: Path, out: Failure[]): Promise<void> {
  try {
    let v = compileExpression(expr, []).evaluate(input);
    if (isPromise(v)) v = await v;
    if (!truthy(v)) out.push(fail(path, `assert is ${JSON.stringify(v) ?? 'undefined'}: ${expr}`));
  } catch (e) {
    out.push(fail(path, `assert failed to evaluate: ${(e as Error).message}`));
  }
}

export async function checkExpectations(e: CaseExpect, o: Observed): Promise<Failure[]> {
  const out: Failure[] = [];
  const a = o.answer;
  if (e.status !== undefined && e.status !== a.status) {
    const detail =
      a.status >= 400 && a.body && typeof a.body === 'object'
        ? [`  (answer: ${JSON.stringify(a.body).slice(0, 300)})`]
        : [];
    out.push(
      fail(['status'], `status ${a.status}, expected ${e.status}`, [`  - ${e.status}`, `  + ${a.status}`, ...detail]),
    );
  }
  if (e.outcome !== undefined && e.outcome !== a.outcome)
    out.push(
      fail(['outcome'], `message ${a.outcome}, expected ${e.outcome}`, [`  - ${e.outcome}`, `  + ${a.outcome}`]),
    );
  for (const [key, subset] of [
    ['body', false],
    ['body-contains', true],
  ] as const) {
    if (e[key] === undefined) continue;
    const ms = compare(e[key], a.body, subset);
    if (ms.length) out.push(fail([key, ...ms[0].path], `${key} differs`, diffLines('body', ms)));
  }
  if (e.headers) {
    const ms = compare(textMap(e.headers, true), a.headers, true);
    if (ms.length) out.push(fail(['headers', ...ms[0].path], 'headers differ', diffLines('headers', ms)));
  }
  // a target without a stub is a failure of its own: the route reached a vendor the test did not script
  const unstubbed = [...new Set(o.stubs.unstubbed)];
  if (unstubbed.length)
    out.push(
      fail(
        [],
        `to-http target(s) ${unstubbed.map((t) => `'${t}'`).join(', ')} called without a stub; add stubs: { ${unstubbed[0]}: ... } to the case`,
      ),
    );
  for (const [target, exp] of Object.entries(e.calls ?? {})) {
    checkCalls(target, exp, o.stubs.stubs.get(target)?.requests ?? [], ['calls', target], out);
  }
  const events = o.stubs.eventhub.requests.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.body);
  if (e.events) {
    const ms = compare(e.events, events, true);
    if (ms.length)
      out.push(
        fail(
          ['events', ...ms[0].path],
          `events differ (${events.length} published, ${e.events.length} expected)`,
          diffLines('events', ms),
        ),
      );
  }
  const calls = Object.fromEntries([...o.stubs.stubs].map(([k, s]) => [k, s.requests]));
  for (const [i, expr] of (e.assert ?? []).entries()) {
    await checkAssert(
      expr,
      { status: a.status, body: a.body, headers: a.headers, outcome: a.outcome, calls, events },
      ['assert', i],
      out,
    );
  }
  for (const [i, text] of (e['logs-absent'] ?? []).entries()) {
    const hit = o.logs.find((l) => l.includes(text));
    // the line itself is not shown: it holds the very text that must not be there
    if (hit) {
      let msg = '';
      try {
        msg = String(JSON.parse(hit).msg ?? '');
      } catch {
        /* not JSON */
      }
      out.push(fail(['logs-absent', i], `a log line contains the text of logs-absent[${i}] (log message: '${msg}')`));
    }
  }
  return out;
}
