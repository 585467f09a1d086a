// The durable store the strict benchmark's gateway writes its audit trail to: PostgreSQL, as in
// production (a database of its own, made afresh each run), when one answers; else the embedded
// store, said loudly. The embedded store runs PostgreSQL compiled to WebAssembly inside the engine's
// process, so each decision it records costs the engine itself about 30 µs of CPU (docs/benchmarks.md).
import pg from 'pg';

const ADMIN = process.env.BENCH_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = 'engine_bench';

export interface BenchStore {
  /** the engine's environment naming the store (empty: the embedded default) */
  env: Record<string, string>;
  line: string;
}

export async function benchStore(): Promise<BenchStore> {
  const client = new pg.Client({ connectionString: ADMIN, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${DATABASE}`);
    const url = new URL(ADMIN);
    url.pathname = `/${DATABASE}`;
    return {
      env: { ENGINE_STORE_POSTGRES_URL: url.toString() },
      line: `gateway audit trail in PostgreSQL (${url.host}/${DATABASE}, unpinned server)`,
    };
  } catch (e) {
    return {
      env: {},
      line: `GATEWAY ON THE EMBEDDED STORE: PostgreSQL at ${new URL(ADMIN).host} did not answer (${(e as Error).message}); every audit record costs the engine ~30 µs`,
    };
  } finally {
    await client.end().catch(() => {});
  }
}
