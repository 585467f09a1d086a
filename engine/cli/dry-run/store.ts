// The durable store as a run would open it: PostgreSQL reached with the configured URL and its
// migrations level read (the versions applied against those this engine ships), or the embedded
// store's folder writable. Nothing is migrated or written beyond a probe file.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadMigrations } from '../../store/migrate.ts';
import type { DurableSettings } from '../../store/durable-for.ts';
import type { Outcome } from './check.ts';

/** Where the store is, printed in the host:port column: never the URL (it may carry a password). */
export function storeTarget(s: DurableSettings): string {
  if (s.kind === 'embedded') return relative('.', s.dir) || '.';
  try {
    const u = new URL(s.url);
    return `${u.hostname}:${u.port || 5432}`;
  } catch {
    return '(unparsable URL)';
  }
}

export async function checkStore(s: DurableSettings): Promise<Outcome> {
  if (s.kind === 'embedded') {
    const probe = join(s.dir, `.dry-run-${process.pid}`);
    mkdirSync(s.dir, { recursive: true });
    writeFileSync(probe, '');
    rmSync(probe);
    return { status: 'ok', reason: 'embedded store folder is writable' };
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: s.url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (e) {
    // pg's messages name the user and the database, not the password
    throw new Error(`PostgreSQL: ${(e as Error).message}`, { cause: e });
  }
  try {
    const latest = Math.max(0, ...loadMigrations().map((m) => m.version));
    const table = await client.query('SELECT to_regclass($1) AS t', [`"${s.schema}".schema_migrations`]);
    if (!table.rows[0]?.t)
      return {
        status: 'warn',
        reason: `connected; schema '${s.schema}' has no migrations yet (the first start applies ${latest})`,
      };
    const { rows } = await client.query(`SELECT max(version) AS v FROM "${s.schema}".schema_migrations`);
    const level = Number(rows[0]?.v ?? 0);
    if (level < latest)
      return {
        status: 'warn',
        reason: `connected; migrations at ${level}, this engine ships ${latest} (the next start applies the rest)`,
      };
    return { status: 'ok', reason: `connected; migrations at ${level} of ${latest}` };
  } finally {
    await client.end().catch(() => {});
  }
}
