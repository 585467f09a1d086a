// `engine tools approve`, `engine audit verify` and `engine audit list` as an operator runs them
// (bin/engine.js), on the machine's PostgreSQL (ENGINE_STORE_POSTGRES_URL, a schema of the test's
// own set in a copy of the values): an approval is an `approval` record; verify passes, then exits
// 1 naming the record edited by hand in SQL; list filters by user, tool and time.

import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import type { DurableStore } from '../../engine/store/durable.ts';
import { appendRecords, pending } from '../../engine/gateway/audit-chain.ts';
import { ROUTES } from './helpers.ts';
import { dropSchema, PG_URL, uniqueSchema } from '../store/helpers.ts';

const run = promisify(execFile);
const schema = uniqueSchema('auditcli');
let values: string;
let store: DurableStore;

async function engine(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/engine.js', ...args], {
      timeout: 60_000,
      env: { ...process.env, ENGINE_STORE_POSTGRES_URL: PG_URL, LOG_LEVEL: 'silent' },
    });
    return { code: 0, stdout, stderr };
  } catch (e: any) {
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}
const common = () => ['--env', 'sandbox', '--values', values, '--routes', ROUTES.join(',')];

beforeAll(async () => {
  values = mkdtempSync(join(tmpdir(), 'audit-cli-'));
  cpSync('values', values, { recursive: true });
  // the store's schema for this test (the URL comes from the process environment)
  const env = join(values, 'environments', 'sandbox.yaml');
  writeFileSync(
    env,
    readFileSync(env, 'utf8').replace('engine:\n', `engine:\n  store:\n    postgres:\n      schema: ${schema}\n`),
  );
  store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
  await appendRecords(store.sql, [
    pending({ kind: 'call', tool: 'getExchangeRate', user: 'alice', at: '2026-01-01T10:00:00Z', outcome: 'ok' }),
    pending({ kind: 'refusal', tool: 'getMyAccountBalance', user: 'bob', check: 'token_required' }),
  ]);
}, 60_000);

afterAll(async () => {
  await store?.close();
  await dropSchema(schema);
});

describe('engine audit', () => {
  it('tools approve is recorded; verify passes; list filters', async () => {
    const a = await engine('tools', 'approve', 'getExchangeRate', '--by', 'risk-officer', ...common());
    expect(a.stderr).toBe('');
    expect(a.stdout).toMatch(/approved getExchangeRate for sandbox/);
    const v = await engine('audit', 'verify', ...common());
    expect(v).toMatchObject({ code: 0 });
    expect(v.stdout).toMatch(/^audit trail verified: 3 records; head: record 3 [0-9a-f]{64}/);

    const byUser = await engine('audit', 'list', '--user', 'risk-officer', '--json', ...common());
    const recs = JSON.parse(byUser.stdout);
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({
      seq: 3,
      kind: 'approval',
      tool: 'getExchangeRate',
      outcome: 'approved again',
      detail: expect.stringMatching(/^env sandbox: sha256:[0-9a-f]{64}$/),
    });
    const since = await engine(
      'audit',
      'list',
      '--tool',
      'getExchangeRate',
      '--since',
      '2026-06-01T00:00:00Z',
      ...common(),
    );
    expect(since.stdout).toMatch(/approval\s+getExchangeRate\s+risk-officer/);
    expect(since.stdout).not.toMatch(/\bcall\b/);
    expect(since.stdout).toMatch(/1 record\(s\)/);
    const bad = await engine('audit', 'list', '--since', 'yesterday', ...common());
    expect(bad).toMatchObject({ code: 1, stderr: "engine audit: --since: 'yesterday' is not an ISO 8601 time\n" });
  }, 120_000);

  it('verify exits 1 naming the record edited by hand in the database', async () => {
    await store.sql.query(`UPDATE gateway_audit SET user_id = 'mallory' WHERE seq = 2`);
    const v = await engine('audit', 'verify', ...common());
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/^record 2: hash mismatch/);
    expect(v.stdout).toBe('');
  }, 60_000);
});
