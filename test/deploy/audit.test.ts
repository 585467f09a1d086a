// The dependency audit CI runs (build/audit.mjs from .ci/run): an advisory that audit-accepted.json
// does not accept fails, an accepted one passes until its review date, and an audit that could not
// ask the registry's advisory service fails loudly instead of passing unchecked. Saved `npm audit
// --json` reports stand for the registry (its advisory service answers POSTs only).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, run } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'engine-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ADVISORY = 'GHSA-2222-3333-4444'; // made up, in the GHSA alphabet
/** The shape of `npm audit --json` (report version 2) with one advisory on a transitive package. */
const finding = {
  auditReportVersion: 2,
  vulnerabilities: {
    undici: {
      name: 'undici',
      severity: 'moderate',
      isDirect: true,
      via: [
        {
          source: 1104501,
          name: 'undici',
          dependency: 'undici',
          title: 'An example advisory',
          url: `https://github.com/advisories/${ADVISORY}`,
          severity: 'moderate',
          range: '<7.31.0',
        },
      ],
      effects: [],
      range: '<7.31.0',
      fixAvailable: true,
    },
    'some-wrapper': {
      name: 'some-wrapper',
      severity: 'moderate',
      isDirect: false,
      via: ['undici'],
      effects: [],
      range: '*',
      fixAvailable: true,
    },
  },
  metadata: {
    vulnerabilities: { info: 0, low: 0, moderate: 2, high: 0, critical: 0, total: 2 },
    dependencies: { prod: 58, dev: 400, optional: 0, peer: 0, peerOptional: 0, total: 458 },
  },
};
const clean = {
  auditReportVersion: 2,
  vulnerabilities: {},
  metadata: {
    vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: 0 },
    dependencies: { prod: 58, dev: 400, total: 458 },
  },
};
/** What npm prints when the advisory service refuses (a mirror that serves downloads only). */
const unreachable = {
  message: '405 Method Not Allowed - POST <registry>/-/npm/v1/security/advisories/bulk',
  statusCode: 405,
  error: { summary: '', detail: '' },
};

let n = 0;
async function audit(report: unknown, accepted: unknown[] = [], today = '2026-11-27') {
  const files = { report: join(dir, `report-${++n}.json`), accepted: join(dir, `accepted-${n}.json`) };
  writeFileSync(files.report, typeof report === 'string' ? report : JSON.stringify(report));
  writeFileSync(files.accepted, JSON.stringify({ accepted }));
  const r = await run(
    'node',
    ['build/audit.mjs', '--report', files.report, '--accepted', files.accepted, '--today', today],
    { cwd: ROOT, timeoutMs: 30_000 },
  );
  return { code: r.code, out: r.stdout + r.stderr };
}

const acceptance = {
  advisory: ADVISORY,
  package: 'undici',
  reason: 'the engine never asks undici to decompress',
  'review-by': '2027-02-01',
};

describe('the dependency audit', () => {
  it('passes a clean report', async () => {
    const r = await audit(clean);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('58 production packages, 0 vulnerable, 0 not accepted');
  });

  it('fails on an advisory nobody accepted, naming it', async () => {
    const r = await audit(finding);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain(`NOT ACCEPTED: ${ADVISORY} undici@<7.31.0 (moderate): An example advisory`);
    expect(r.out).toContain('1 not accepted');
  });

  it('passes an accepted advisory with its reason until its review date, then fails on it', async () => {
    const before = await audit(finding, [acceptance]);
    expect(before.code, before.out).toBe(0);
    expect(before.out).toContain(`accepted until 2027-02-01: ${ADVISORY} undici`);
    expect(before.out).toContain('why: the engine never asks undici to decompress');
    const after = await audit(finding, [acceptance], '2027-02-02');
    expect(after.code, after.out).toBe(1);
    expect(after.out).toContain('its review date 2027-02-01 has passed');
    // an acceptance names the package too: the same advisory on another package is not accepted
    const other = await audit(finding, [{ ...acceptance, package: 'ajv' }]);
    expect(other.code).toBe(1);
    expect(other.out).toContain('no longer reported; remove it');
  });

  it('refuses an acceptance without its reason, its review date or a GHSA id', async () => {
    for (const [bad, says] of [
      [{ ...acceptance, reason: '' }, 'has no reason'],
      [{ ...acceptance, 'review-by': undefined }, 'has no review-by'],
      [{ ...acceptance, advisory: 'CVE-2026-1' }, 'is not a GHSA id'],
    ] as const) {
      const r = await audit(clean, [bad]);
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain(says);
    }
  });

  it('fails loudly when the audit could not run: no advisory service, or no report at all', async () => {
    for (const report of [unreachable, 'npm error audit endpoint returned an error']) {
      const r = await audit(report);
      expect(r.code, r.out).toBe(2);
      expect(r.out).toContain('npm audit DID NOT RUN: the production dependencies were NOT checked');
    }
  });

  it("is CI's: .ci/run runs it and fails on it, and the project's acceptances are complete", async () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(ci).toContain('node build/audit.mjs || audit=$?');
    expect(ci).toMatch(/elif \[ "\$audit" != 0 \]; then[\s\S]*?status=1/);
    const accepted = JSON.parse(readFileSync(join(ROOT, 'audit-accepted.json'), 'utf8')) as {
      accepted: Record<string, string>[];
    };
    const r = await audit(clean, accepted.accepted, new Date().toISOString().slice(0, 10));
    expect(r.out).not.toMatch(/has no|is not a GHSA|is not YYYY/);
    for (const a of accepted.accepted)
      expect(a['review-by'] >= new Date().toISOString().slice(0, 10), `${a.advisory} is due for review`).toBe(true);
  });
});
