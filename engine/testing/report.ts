// Reporters of `engine test`: one line per case (the failing expectation's file:line and a diff
// below it) ending with `N passed, N failed`, or the same results as JSON for tools.

import type { CaseResult } from './runner.ts';
import type { CoverageReport } from './coverage-report.ts';

export function textLine(r: CaseResult): string {
  const ms = `${Math.round(r.ms)} ms`;
  if (r.ok) return `ok    ${r.file}:${r.line} ${r.name} (${ms})`;
  const first = r.failures[0];
  const lines = [`FAIL  ${first.file}:${first.line} ${r.name}`];
  for (const f of r.failures) {
    lines.push(`      ${f.file}:${f.line}:${f.col} ${f.message}`);
    for (const d of f.diff) lines.push(`        ${d}`);
  }
  return lines.join('\n');
}

export function summary(results: CaseResult[], ms: number): string {
  const failed = results.filter((r) => !r.ok).length;
  return `${results.length - failed} passed, ${failed} failed (${(ms / 1000).toFixed(1)} s)`;
}

export function jsonReport(results: CaseResult[], ms: number, coverage?: CoverageReport): string {
  const failed = results.filter((r) => !r.ok).length;
  return JSON.stringify(
    {
      passed: results.length - failed,
      failed,
      ms: Math.round(ms),
      cases: results.map((r) => ({ ...r, ms: Math.round(r.ms) })),
      ...(coverage ? { coverage } : {}),
    },
    null,
    2,
  );
}
