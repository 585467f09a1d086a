// Schema migrations of the durable store: the numbered SQL files of migrations/ (001_*.sql, ...),
// each applied once, in order, in its own transaction, and listed in schema_migrations. Taken
// under a PostgreSQL advisory lock named after the schema, so replicas that start together
// migrate once: the first applies, the others wait and find nothing left to do.
// Numbers taken or reserved: 001 failed exchanges, 002 the webhook outbox, 003 replay and discard audit,
// 004 the gateway audit trail.

import type { SqlClient } from './durable.ts';
import { migrationFiles } from './migration-files.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/** A schema name the engine accepts: quoted as is in SQL, so letters, digits and `_` only. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The migrations in version order (files named NNN_name.sql). */
export function loadMigrations(files = migrationFiles()): Migration[] {
  return Object.entries(files)
    .flatMap(([f, sql]) => {
      const m = FILE.exec(f);
      return m ? [{ version: Number(m[1]), name: m[2], sql }] : [];
    })
    .sort((a, b) => a.version - b.version);
}

/**
 * Brings `schema` up to date on `session` (one connection: the lock and the transactions are a
 * session's). Returns the versions this call applied (none when another replica had).
 */
export async function migrate(
  session: Pick<SqlClient, 'query' | 'exec'>,
  schema: string,
  migrations = loadMigrations(),
): Promise<number[]> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name '${schema}'`);
  await session.query('SELECT pg_advisory_lock(hashtext($1))', [`engine-store:${schema}`]);
  try {
    await session.exec(
      `CREATE SCHEMA IF NOT EXISTS "${schema}";
       CREATE TABLE IF NOT EXISTS "${schema}".schema_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await session.query(`SELECT version FROM "${schema}".schema_migrations`);
    const done = new Set(rows.map((r) => Number(r.version)));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await session.exec(`BEGIN; SET LOCAL search_path TO "${schema}";`);
      try {
        await session.exec(m.sql);
        await session.query(`INSERT INTO "${schema}".schema_migrations (version, name) VALUES ($1, $2)`, [
          m.version,
          m.name,
        ]);
        await session.exec('COMMIT');
      } catch (e) {
        await session.exec('ROLLBACK');
        throw new Error(`migration ${m.version}_${m.name} failed: ${(e as Error).message}`, { cause: e });
      }
      applied.push(m.version);
    }
    return applied;
  } finally {
    await session.query('SELECT pg_advisory_unlock(hashtext($1))', [`engine-store:${schema}`]);
  }
}
