// The durable store on the machine's PostgreSQL: migrations applied once under the advisory lock
// when two replicas start together, failed exchanges recorded, read back and filtered, kept across
// a reopen, and an unreachable server reported without its URL.

import { afterAll, describe, expect, it } from 'vitest';
import { migrate, loadMigrations } from '../../engine/store/migrate.ts';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import { DurableStoreUnavailableError } from '../../engine/store/durable.ts';
import { connect, dropSchema, PG_URL, sample, uniqueSchema } from './helpers.ts';
import type pg from 'pg';

const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

function fresh(tag: string): string {
  const s = uniqueSchema(tag);
  schemas.push(s);
  return s;
}

const session = (c: pg.Client) => ({
  query: (t: string, p?: unknown[]) => c.query(t, p),
  exec: async (t: string) => {
    await c.query(t);
  },
});

describe('durable store: migrations on PostgreSQL', () => {
  it('two concurrent migrations of a fresh schema, each on its own connection, apply one set without error', async () => {
    const schema = fresh('mig');
    const [a, b] = await Promise.all([connect(), connect()]);
    try {
      const results = await Promise.all([migrate(session(a), schema), migrate(session(b), schema)]);
      const all = loadMigrations().map((m) => m.version);
      expect(all[0]).toBe(1);
      // one call applied every migration, the other found nothing left
      expect(results.map((r) => r.length).sort()).toEqual([0, all.length]);
      expect(results.flat()).toEqual(all);
      const { rows } = await a.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual(all);
      // a third start applies nothing
      expect(await migrate(session(a), schema)).toEqual([]);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('a failing migration rolls back: nothing recorded as applied, the error names it', async () => {
    const schema = fresh('bad');
    const c = await connect();
    try {
      const bad = [{ version: 1, name: 'broken', sql: 'CREATE TABLE t1 (x int); SELECT nonsense FROM nowhere;' }];
      await expect(migrate(session(c), schema, bad)).rejects.toThrow(/migration 1_broken failed/);
      const { rows } = await c.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`);
      expect(rows[0].n).toBe(0);
      const t = await c.query(`SELECT to_regclass('"${schema}".t1') AS t`);
      expect(t.rows[0].t).toBeNull();
    } finally {
      await c.end();
    }
  });
});

describe('durable store: failed exchanges on PostgreSQL', () => {
  it('records, reads back, filters, counts, and keeps them across a reopen', async () => {
    const schema = fresh('rec');
    let store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
    const one = await store.recordFailed(sample());
    await store.recordFailed(
      sample({ route: 'other-v1', code: 'UPSTREAM_REJECTED', lastAt: new Date('2026-11-27T11:00:00Z') }),
    );
    expect(one).toMatchObject({ ...sample(), status: 'open' });
    expect(one.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await store.getFailed(one.id)).toEqual(one);
    expect(await store.getFailed('00000000-0000-0000-0000-000000000000')).toBeUndefined();
    expect((await store.listFailed()).map((r) => r.route)).toEqual(['other-v1', 'payment-inbound-v1']);
    expect((await store.listFailed({ route: 'payment-inbound-v1' })).map((r) => r.id)).toEqual([one.id]);
    expect(await store.listFailed({ code: 'NOPE' })).toEqual([]);
    expect((await store.listFailed({ since: new Date('2026-11-27T10:30:00Z') })).map((r) => r.route)).toEqual([
      'other-v1',
    ]);
    expect((await store.listFailed({ until: new Date('2026-11-27T10:30:00Z') })).map((r) => r.id)).toEqual([one.id]);
    expect(await store.listFailed({ limit: 1 })).toHaveLength(1);
    expect(await store.countOpen()).toBe(2);
    await store.close();

    store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
    try {
      expect(await store.getFailed(one.id)).toEqual(one);
      expect(await store.countOpen()).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('an unreachable server is DurableStoreUnavailableError, and the message carries no password', async () => {
    const err = await openPostgresStore({
      url: 'postgres://engine:s3cret-pw@127.0.0.1:1/test',
      schema: 'engine',
      poolSize: 1,
      connectTimeout: 2000,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(DurableStoreUnavailableError);
    expect(`${err.message} ${err.cause?.message}`).not.toContain('s3cret-pw');
  });
});
