// The gateway audit trail's hash chain on both durable stores (PGlite in memory, the machine's
// PostgreSQL): appends chain; verify passes, then names the record after an UPDATE of one row in
// SQL, a DELETE, and a swap of two rows; two writers at once (two pools, as two replicas) keep one
// chain; the background trail writes in order, survives a store that fails, and bounds its queue.

import { afterAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { openEmbeddedStore } from '../../engine/store/durable-pglite.ts';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import type { DurableStore } from '../../engine/store/durable.ts';
import {
  appendRecords,
  GENESIS,
  listRecords,
  pending,
  recordHash,
  verifyChain,
} from '../../engine/gateway/audit-chain.ts';
import { DurableAudit } from '../../engine/gateway/audit.ts';
import { dropSchema, PG_URL, uniqueSchema } from './helpers.ts';

const schemas: string[] = [];
const stores: DurableStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
  for (const s of schemas) await dropSchema(s);
});

async function pgStore(schema?: string): Promise<DurableStore> {
  if (!schema) schemas.push((schema = uniqueSchema('audit')));
  const s = await openPostgresStore({ url: PG_URL, schema, poolSize: 3 });
  stores.push(s);
  return s;
}
async function embedded(): Promise<DurableStore> {
  const s = await openEmbeddedStore({});
  stores.push(s);
  return s;
}

const call = (i: number) =>
  pending({ kind: 'call', tool: 'getBalance', user: `u${i}`, subscription: 'demo', outcome: 'ok', keyId: 'k1' });

for (const [name, open] of [
  ['PGlite', embedded],
  ['PostgreSQL', () => pgStore()],
] as const) {
  describe(`gateway audit chain on ${name}`, () => {
    it('appends chain each record to the one before; verify passes', async () => {
      const store = await open();
      expect(await appendRecords(store.sql, [call(1), call(2)])).toBe(2);
      expect(await appendRecords(store.sql, [call(3)])).toBe(3);
      const recs = (await listRecords(store.sql)).reverse();
      expect(recs.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(recs[0].prevHash).toBe(GENESIS);
      expect(recs[1].prevHash).toBe(recs[0].hash);
      expect(recs[2].prevHash).toBe(recs[1].hash);
      expect(recs[2].hash).toBe(recordHash(3, { ...recs[2] }, recs[1].hash));
      expect(await verifyChain(store.sql)).toMatchObject({ ok: true, records: 3, head: { seq: 3 }, problems: [] });
      expect((await listRecords(store.sql, { user: 'u2' })).map((r) => r.seq)).toEqual([2]);
    });

    it('names an edited record (UPDATE), a removed one (DELETE) and two swapped ones', async () => {
      const store = await open();
      await appendRecords(
        store.sql,
        Array.from({ length: 8 }, (_, i) => call(i + 1)),
      );
      await store.sql.query(`UPDATE gateway_audit SET outcome = 'error' WHERE seq = 3`);
      let v = await verifyChain(store.sql);
      expect(v.ok).toBe(false);
      expect(v.problems).toEqual([expect.stringMatching(/^record 3: hash mismatch/)]);
      await store.sql.query(`UPDATE gateway_audit SET outcome = 'ok' WHERE seq = 3`);
      expect((await verifyChain(store.sql)).ok).toBe(true);

      await store.sql.query('DELETE FROM gateway_audit WHERE seq = 5');
      v = await verifyChain(store.sql);
      expect(v.problems[0]).toMatch(/^record 5: missing \(the chain goes from 4 to 6\)/);
      expect(v.problems[1]).toMatch(/^record 6: previous hash mismatch/);

      // the two rows trade places: seq 7 holds 8's record and the other way round
      await store.sql.query('UPDATE gateway_audit SET seq = -seq WHERE seq IN (7, 8)');
      await store.sql.query('UPDATE gateway_audit SET seq = CASE seq WHEN -7 THEN 8 ELSE 7 END WHERE seq < 0');
      v = await verifyChain(store.sql);
      expect(v.problems).toContainEqual(expect.stringMatching(/^record 7: hash mismatch/));
      expect(v.problems).toContainEqual(expect.stringMatching(/^record 8: hash mismatch/));
    });

    it('the background trail writes decisions in order, and a gap record when its queue overflowed', async () => {
      const store = await open();
      let up = false;
      const audit = new DurableAudit({
        store: async () => {
          if (!up) throw new Error('store down');
          return store;
        },
        log: pino({ level: 'silent' }),
        maxQueue: 5,
        retryMs: 10,
        maxRetryMs: 20,
      });
      for (let i = 1; i <= 8; i++) audit.record({ kind: 'refusal', check: 'invalid_key', detail: `n${i}` });
      expect(audit.queued).toBe(5);
      await new Promise((r) => setTimeout(r, 50));
      up = true;
      await audit.flush();
      const recs = (await listRecords(store.sql)).reverse();
      expect(recs.map((r) => r.detail)).toEqual([
        '3 decision(s) not recorded: the audit queue was full (5)',
        'n1',
        'n2',
        'n3',
        'n4',
        'n5',
      ]);
      expect(recs[0].kind).toBe('gap');
      audit.record({ kind: 'call', tool: 't', outcome: 'ok' });
      await audit.flush();
      expect((await verifyChain(store.sql)).records).toBe(7);
      await audit.close();
    });
  });
}

describe('gateway audit chain: replicas', () => {
  it('two writers (two pools on one schema) appending at once keep one chain without a gap', async () => {
    const a = await pgStore();
    const b = await pgStore(schemas.at(-1));
    const log = pino({ level: 'silent' });
    const ta = new DurableAudit({ store: async () => a, log, batch: 3 });
    const tb = new DurableAudit({ store: async () => b, log, batch: 2 });
    const burst = async (t: DurableAudit, who: string) => {
      for (let i = 0; i < 40; i++) {
        t.record({ kind: 'call', tool: 'x', user: `${who}${i}` });
        if (i % 7 === 0) await new Promise((r) => setImmediate(r));
      }
    };
    await Promise.all([burst(ta, 'a'), burst(tb, 'b')]);
    await Promise.all([ta.flush(), tb.flush()]);
    const v = await verifyChain(a.sql);
    expect(v).toMatchObject({ ok: true, records: 80 });
    const users = (await listRecords(a.sql, { limit: 100 })).reverse().map((r) => r.user!);
    // each writer's own decisions stay in the order it made them
    expect(users.filter((u) => u.startsWith('a'))).toEqual(Array.from({ length: 40 }, (_, i) => `a${i}`));
    expect(users.filter((u) => u.startsWith('b'))).toEqual(Array.from({ length: 40 }, (_, i) => `b${i}`));
    await Promise.all([ta.close(), tb.close()]);
  });
});
