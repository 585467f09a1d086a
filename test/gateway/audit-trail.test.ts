// The gateway's audit trail through /mcp on a real engine, its durable store on the machine's
// PostgreSQL (a schema of the test's own): a tool call is a `call` record with the subscription,
// the key's id, the token's subject, issuer and jti, the argument digest, outcome and code; each
// refusal a `refusal` record naming the check; the chain verifies; and neither the subscription key
// nor the bearer token is anywhere in the table.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, KEY, startGateway, type GatewayTestEngine } from './helpers.ts';
import { durableSchemaExtension } from '../helpers/durable-schema.ts';
import { connect, dropSchema, uniqueSchema } from '../store/helpers.ts';
import { argsDigest, verifyChain } from '../../engine/gateway/audit-chain.ts';
import { keyEntry } from '../../engine/gateway/keys.ts';
import type pg from 'pg';

const schema = uniqueSchema('gwaudit');
let e: GatewayTestEngine;
let db: pg.Client;
let token: string;

const FX = { sellCurrency: 'USD', buyCurrency: 'EUR' };

/** The rows once the trail has written `n` of them (it writes in the background). */
async function rows(n: number): Promise<Record<string, any>[]> {
  for (let i = 0; i < 100; i++) {
    const { rows: r } = await db.query(`SELECT * FROM "${schema}".gateway_audit ORDER BY seq`).catch(() => ({
      rows: [],
    }));
    if (r.length >= n) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`fewer than ${n} audit records`);
}

beforeAll(async () => {
  e = await startGateway({}, { extensions: [durableSchemaExtension(schema)] }, true);
  db = await connect();
  token = await e.idp.sign({ sub: 'alice', claims: { jti: 'tok-123' } });
}, 60_000);

afterAll(async () => {
  await e?.close();
  await db?.end();
  await dropSchema(schema);
});

describe('gateway audit trail through /mcp', () => {
  it('records calls and refusals, chains them, and never keeps a key or a token', async () => {
    const ok = await e.rpc('tools/call', { name: 'getExchangeRate', arguments: FX }, bearer(token));
    expect(ok.body.result.isError).toBe(false);
    const mine = await e.rpc('tools/call', { name: 'getMyAccountBalance', arguments: {} });
    expect(mine.status).toBe(401); // token_required
    const bad = await e.rpc('tools/list', {}, { 'ocp-gateway-subscription-key': 'not-a-key' });
    expect(bad.status).toBe(401);
    const unknown = await e.rpc('tools/call', { name: 'nope', arguments: {} }, bearer(token));
    expect(unknown.body.error.code).toBe(-32602);

    const r = await rows(4);
    expect(r.map((x) => [x.kind, x.check_name, x.tool])).toEqual([
      ['call', null, 'getExchangeRate'],
      ['refusal', 'token_required', 'getMyAccountBalance'],
      ['refusal', 'invalid_key', null],
      ['refusal', 'unknown_tool', 'nope'],
    ]);
    const keyId = keyEntry(KEY).slice('sha256:'.length, 'sha256:'.length + 12);
    expect(r[0]).toMatchObject({
      subscription: expect.any(String),
      key_id: keyId,
      user_id: 'alice',
      issuer: e.idp.issuer,
      jti: 'tok-123',
      args_digest: argsDigest({ buyCurrency: 'EUR', sellCurrency: 'USD' }),
      outcome: 'ok',
      correlation_id: expect.any(String),
    });
    expect(r[1]).toMatchObject({ user_id: 'anonymous', key_id: keyId, outcome: 'refused' });
    expect(r[2]).toMatchObject({ key_id: null, subscription: null });
    expect(r[3]).toMatchObject({ user_id: 'alice', jti: 'tok-123' });

    // a call that failed in its route: outcome error with the platform code
    const failed = await e.rpc('tools/call', {
      name: 'getExchangeRate',
      arguments: { sellCurrency: 'USD', buyCurrency: 'X' },
    });
    const text = failed.body.result?.content?.[0]?.text ?? '';
    const r5 = (await rows(5))[4];
    expect(failed.body.result.isError).toBe(true);
    expect(r5).toMatchObject({ kind: 'call', tool: 'getExchangeRate', outcome: 'error', code: JSON.parse(text).code });
    expect(r5.code).toMatch(/^\w+/);

    await db.query(`SET search_path TO "${schema}"`);
    expect(await verifyChain({ query: (t, p) => db.query(t, p) })).toMatchObject({ ok: true, records: 5 });

    // no key, no token, not even the token's signature, in any column of any row
    const dump = JSON.stringify((await db.query('SELECT * FROM gateway_audit')).rows);
    expect(dump).not.toContain(KEY);
    expect(dump).not.toContain('not-a-key');
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.split('.')[2]);
    const { rows: grep } = await db.query(
      `SELECT count(*)::int AS n FROM gateway_audit g WHERE g::text LIKE '%' || $1 || '%' OR g::text LIKE '%' || $2 || '%'`,
      [KEY, token.split('.')[2]],
    );
    expect(grep[0].n).toBe(0);

    const metrics = await (await fetch(`${e.url}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_audit_queued 0$/m);
    expect(metrics).toMatch(/^gateway_audit_dropped_total 0$/m);
  });
});
