// The embedded durable store: PGlite (PostgreSQL compiled to WebAssembly) in a data folder, so one
// process keeps its records across restarts with no server and the SQL is PostgreSQL's. Imported
// when the store first opens: an engine that never records anything never loads it.

import { mkdirSync } from 'node:fs';
import { DurableStoreUnavailableError, type DurableStore } from './durable.ts';
import { SqlDurableStore } from './durable-sql.ts';
import { migrate } from './migrate.ts';

/** The schema of the engine's tables in the embedded database. */
const SCHEMA = 'engine';

/** `dir`: the data folder (created when missing); absent, memory only (tests alone). */
export async function openEmbeddedStore(opts: { dir?: string }): Promise<DurableStore> {
  try {
    if (opts.dir) mkdirSync(opts.dir, { recursive: true });
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(opts.dir);
    const sql = {
      query: (text: string, params?: unknown[]) => db.query<Record<string, unknown>>(text, params),
      exec: async (text: string) => {
        await db.exec(text);
      },
    };
    await migrate(sql, SCHEMA);
    // one connection: the search path set once holds for every later query
    await db.exec(`SET search_path TO "${SCHEMA}"`);
    return new SqlDurableStore('embedded', sql, () => db.close());
  } catch (e) {
    throw new DurableStoreUnavailableError(e);
  }
}
