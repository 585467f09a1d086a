// Replay, discard and their audit, on both databases the durable store runs on (the machine's
// PostgreSQL and the embedded PGlite): a claim is taken once, however many ask at the same time; a
// failed replay reopens the record with its new cause; discard acts only on open records; audit
// entries are listed newest first and by the record they name; transactions commit or roll back.

import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import { openEmbeddedStore } from '../../engine/store/durable-pglite.ts';
import type { DurableStore } from '../../engine/store/durable.ts';
import { dropSchema, PG_URL, sample, uniqueSchema } from './helpers.ts';

const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

const kinds: [string, () => Promise<DurableStore>][] = [
  [
    'PostgreSQL',
    () => {
      const schema = uniqueSchema('replay');
      schemas.push(schema);
      return openPostgresStore({ url: PG_URL, schema, poolSize: 4 });
    },
  ],
  ['embedded', () => openEmbeddedStore({})],
];

describe.each(kinds)('durable store replay and audit: %s', (_name, open) => {
  it('claims once among concurrent claimers, finishes replayed or open again, discards only open records', async () => {
    const store = await open();
    try {
      const a = await store.recordFailed(sample({ context: { messageId: 'm-1', queue: 'q' }, detail: 'bad amount' }));
      expect(a.context).toEqual({ messageId: 'm-1', queue: 'q' });
      expect(a.detail).toBe('bad amount');
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => store.claimForReplay(a.id, `op${i}`)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect((await store.getFailed(a.id))?.status).toBe('replaying');
      expect(await store.discard(a.id, 'op9')).toBeUndefined();

      const again = await store.finishReplay(a.id, 'op1', {
        ok: false,
        code: 'GC027',
        cause: 'vendor 503',
        correlationId: 'corr-2',
      });
      expect(again).toMatchObject({ status: 'open', attempts: 4, code: 'GC027', cause: 'vendor 503' });
      expect(again.correlationId).toBe('corr-2');
      expect(again.lastAt.getTime()).toBeGreaterThan(a.lastAt.getTime());

      expect(await store.claimForReplay(a.id, 'op1')).toBeDefined();
      const done = await store.finishReplay(a.id, 'op1', { ok: true });
      expect(done).toMatchObject({ status: 'replayed', settledBy: 'op1' });
      expect(done.settledAt).toBeInstanceOf(Date);
      expect(await store.claimForReplay(a.id, 'op2')).toBeUndefined();
      expect(await store.discard(a.id, 'op2')).toBeUndefined();

      const b = await store.recordFailed(sample({ route: 'other-v1' }));
      expect(await store.countFailed({ status: 'open' })).toBe(1);
      expect(await store.countFailed({ route: 'payment-inbound-v1' })).toBe(1);
      expect((await store.discard(b.id, 'op3'))?.status).toBe('discarded');
      expect(await store.claimForReplay(b.id, 'op3')).toBeUndefined();
      expect(await store.countOpen()).toBe(0);
      expect(await store.claimForReplay('no-such-id', 'op3')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a claim left by a replay that died is taken again once stale', async () => {
    const store = await open();
    try {
      const a = await store.recordFailed(sample());
      expect(await store.claimForReplay(a.id, 'op1')).toBeDefined();
      expect(await store.claimForReplay(a.id, 'op2')).toBeUndefined();
      await new Promise((r) => setTimeout(r, 30));
      expect((await store.claimForReplay(a.id, 'op2', 10))?.settledBy).toBe('op2');
    } finally {
      await store.close();
    }
  });

  it('appends audit entries and lists them newest first, by record, actor and time', async () => {
    const store = await open();
    try {
      const before = new Date(Date.now() - 1000);
      const e1 = await store.appendAudit({
        actor: 'alice',
        action: 'replay',
        records: ['r1', 'r2'],
        outcome: 'replayed 2',
        via: 'cli',
      });
      const e2 = await store.appendAudit({
        actor: 'bob',
        action: 'discard',
        records: ['r2'],
        outcome: 'discarded',
        via: 'console',
      });
      expect(e1).toMatchObject({ actor: 'alice', action: 'replay', records: ['r1', 'r2'], via: 'cli' });
      expect(e2.id).toBeGreaterThan(e1.id);
      expect((await store.listAudit()).map((e) => e.id)).toEqual([e2.id, e1.id]);
      expect((await store.listAudit({ record: 'r1' })).map((e) => e.id)).toEqual([e1.id]);
      expect((await store.listAudit({ actor: 'bob' })).map((e) => e.outcome)).toEqual(['discarded']);
      expect(await store.listAudit({ since: new Date(Date.now() + 60_000) })).toEqual([]);
      expect((await store.listAudit({ since: before, limit: 1 })).map((e) => e.id)).toEqual([e2.id]);
    } finally {
      await store.close();
    }
  });

  it('a transaction commits when its function resolves and rolls back when it throws', async () => {
    const store = await open();
    try {
      await store.sql.exec('CREATE TABLE tx_probe (n int)');
      await store.sql.transaction(async (tx) => {
        await tx.query('INSERT INTO tx_probe VALUES (1)');
      });
      await expect(
        store.sql.transaction(async (tx) => {
          await tx.query('INSERT INTO tx_probe VALUES (2)');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const { rows } = await store.sql.query('SELECT n FROM tx_probe ORDER BY n');
      expect(rows.map((r) => r.n)).toEqual([1]);
    } finally {
      await store.close();
    }
  });
});
