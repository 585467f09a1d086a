// The durable store's queries, one SQL for both databases: a pg pool (durable-pg.ts) and PGlite
// (durable-pglite.ts) each supply a SqlClient whose tables migrate.ts has created.

import { randomUUID } from 'node:crypto';
import type { DurableStore, FailedExchange, FailedExchangeInput, FailedFilter, FailedStatus } from './durable.ts';

/** What both databases offer: parameterised single statements, and scripts of several. */
export interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** several statements, no parameters (a migration file) */
  exec(sql: string): Promise<void>;
}

const COLUMNS =
  'id, route, route_version, source, status, code, cause, body, headers, attempts, first_at, last_at, trace_id, correlation_id';

export class SqlDurableStore implements DurableStore {
  constructor(
    readonly kind: 'postgres' | 'embedded',
    private readonly sql: SqlClient,
    private readonly closeFn: () => Promise<void>,
  ) {}

  async recordFailed(rec: FailedExchangeInput): Promise<FailedExchange> {
    const now = new Date();
    const { rows } = await this.sql.query(
      `INSERT INTO failed_exchanges (${COLUMNS})
       VALUES ($1, $2, $3, $4, 'open', $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13)
       RETURNING ${COLUMNS}`,
      [
        randomUUID(),
        rec.route,
        rec.routeVersion ?? null,
        rec.source,
        rec.code,
        rec.cause ?? null,
        rec.body ?? null,
        JSON.stringify(rec.headers ?? {}),
        rec.attempts ?? 1,
        (rec.firstAt ?? rec.lastAt ?? now).toISOString(),
        (rec.lastAt ?? now).toISOString(),
        rec.traceId ?? null,
        rec.correlationId ?? null,
      ],
    );
    return toRecord(rows[0]);
  }

  async listFailed(filter: FailedFilter = {}): Promise<FailedExchange[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (filter.route !== undefined) add('route = ?', filter.route);
    if (filter.code !== undefined) add('code = ?', filter.code);
    if (filter.status !== undefined) add('status = ?', filter.status);
    if (filter.since) add('last_at >= ?', filter.since.toISOString());
    if (filter.until) add('last_at < ?', filter.until.toISOString());
    params.push(Math.max(1, Math.min(filter.limit ?? 100, 10_000)));
    const { rows } = await this.sql.query(
      `SELECT ${COLUMNS} FROM failed_exchanges ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY last_at DESC, id LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRecord);
  }

  async getFailed(id: string): Promise<FailedExchange | undefined> {
    const { rows } = await this.sql.query(`SELECT ${COLUMNS} FROM failed_exchanges WHERE id = $1`, [id]);
    return rows.length ? toRecord(rows[0]) : undefined;
  }

  async countOpen(): Promise<number> {
    const { rows } = await this.sql.query(`SELECT count(*)::int AS n FROM failed_exchanges WHERE status = 'open'`);
    return Number(rows[0].n);
  }

  close(): Promise<void> {
    return this.closeFn();
  }
}

function toRecord(r: Record<string, unknown>): FailedExchange {
  const opt = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
  const headers = typeof r.headers === 'string' ? JSON.parse(r.headers) : r.headers;
  return {
    id: String(r.id),
    route: String(r.route),
    routeVersion: opt(r.route_version),
    source: String(r.source),
    status: r.status as FailedStatus,
    code: String(r.code),
    cause: opt(r.cause),
    body: opt(r.body),
    headers: (headers ?? {}) as Record<string, string>,
    attempts: Number(r.attempts),
    firstAt: new Date(r.first_at as string | Date),
    lastAt: new Date(r.last_at as string | Date),
    traceId: opt(r.trace_id),
    correlationId: opt(r.correlation_id),
  };
}
