// The embedded durable store: PGlite (PostgreSQL compiled to WebAssembly) in a data folder, so one
// process keeps its records across restarts with no server and the SQL is PostgreSQL's. Imported
// when the store first opens: an engine that never records anything never loads it.

import { mkdirSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { DurableStoreUnavailableError, type DurableStore, type SqlClient } from './durable.ts';
import { SqlDurableStore } from './durable-sql.ts';
import { migrate } from './migrate.ts';
import { lockEmbeddedDir } from './embedded-lock.ts';

/** The schema of the engine's tables in the embedded database. */
const SCHEMA = 'engine';

/** `dir`: the data folder (created when missing); absent, memory only (tests alone). */
export async function openEmbeddedStore(opts: { dir?: string }): Promise<DurableStore> {
  let unlock = () => {};
  let db: PGlite | undefined;
  try {
    if (opts.dir) {
      mkdirSync(opts.dir, { recursive: true });
      unlock = lockEmbeddedDir(opts.dir);
    }
    const { PGlite } = await import('@electric-sql/pglite');
    const open = await PGlite.create(opts.dir);
    db = open;
    const sql: SqlClient = {
      query: (text, params) => open.query<Record<string, unknown>>(text, params),
      exec: async (text) => {
        await open.exec(text);
      },
      // PGlite is one connection: its transaction queues the other statements until it ends
      transaction: (fn) => open.transaction((tx) => fn({ query: (text, params) => tx.query(text, params) })),
    };
    await migrate(sql, SCHEMA);
    // one connection: the search path set once holds for every later query
    await open.exec(`SET search_path TO "${SCHEMA}"`);
    return new SqlDurableStore('embedded', sql, async () => {
      try {
        await open.close();
      } finally {
        unlock();
      }
    });
  } catch (e) {
    await db?.close().catch(() => {});
    unlock();
    throw new DurableStoreUnavailableError(e);
  }
}
