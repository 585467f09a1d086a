// The durable store on PostgreSQL: a pg pool whose connections use the store's schema, migrated
// at open on one connection (migrate.ts). `pg` is imported when the store first opens.

import type { Pool, PoolClient } from 'pg';
import { DurableStoreUnavailableError, type DurableStore, type SqlClient } from './durable.ts';
import { SqlDurableStore } from './durable-sql.ts';
import { migrate, SCHEMA_NAME } from './migrate.ts';

export interface PostgresStoreOptions {
  /** postgres:// URL; may carry a password, so it is never logged */
  url: string;
  /** the schema of the engine's tables (created when missing) */
  schema: string;
  /** most connections the pool opens */
  poolSize: number;
  /** longest wait for a connection, ms */
  connectTimeout?: number;
}

/** A pool client as the session migrate.ts needs. */
function session(c: Pick<PoolClient, 'query'>): Pick<SqlClient, 'query' | 'exec'> {
  return {
    query: (text, params) => c.query(text, params),
    exec: async (sql) => {
      await c.query(sql);
    },
  };
}

/** The pool as a SqlClient: a transaction takes one connection of it for its statements. */
function pooled(pool: Pool): SqlClient {
  return {
    ...session(pool),
    transaction: async (fn) => {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const out = await fn({ query: (text, params) => c.query(text, params) });
        await c.query('COMMIT');
        return out;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        c.release();
      }
    },
  };
}

export async function openPostgresStore(opts: PostgresStoreOptions): Promise<DurableStore> {
  if (!SCHEMA_NAME.test(opts.schema)) throw new Error(`invalid schema name '${opts.schema}'`);
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    connectionTimeoutMillis: opts.connectTimeout ?? 5000,
    options: `-c search_path=${opts.schema}`,
  });
  // an idle connection that drops is replaced on next use; unhandled, it would end the process
  pool.on('error', () => {});
  try {
    const c = await pool.connect();
    try {
      await migrate(session(c), opts.schema);
    } finally {
      c.release();
    }
  } catch (e) {
    await pool.end().catch(() => {});
    throw new DurableStoreUnavailableError(e);
  }
  return new SqlDurableStore('postgres', pooled(pool), () => pool.end());
}
