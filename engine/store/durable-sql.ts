// The durable store's queries, one SQL for both databases: a pg pool (durable-pg.ts) and PGlite
// (durable-pglite.ts) each supply a SqlClient whose tables migrate.ts has created.

import { randomUUID } from 'node:crypto';
import type {
  AuditEntry,
  AuditFilter,
  AuditInput,
  DurableStore,
  FailedExchange,
  FailedExchangeInput,
  FailedFilter,
  FailedStatus,
  ReplayOutcome,
  SqlClient,
} from './durable.ts';

const COLUMNS =
  'id, route, route_version, source, status, code, cause, body, headers, attempts, first_at, last_at, trace_id, ' +
  'correlation_id, detail, context, settled_by, settled_at';

/** a replay claim older than this is taken to have died with its process */
const STALE_CLAIM_MS = 10 * 60_000;

export class SqlDurableStore implements DurableStore {
  constructor(
    readonly kind: 'postgres' | 'embedded',
    readonly sql: SqlClient,
    private readonly closeFn: () => Promise<void>,
  ) {}

  async recordFailed(rec: FailedExchangeInput): Promise<FailedExchange> {
    const now = new Date();
    const { rows } = await this.sql.query(
      `INSERT INTO failed_exchanges (id, route, route_version, source, status, code, cause, body, headers, attempts,
         first_at, last_at, trace_id, correlation_id, detail, context)
       VALUES ($1, $2, $3, $4, 'open', $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14, $15::jsonb)
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
        rec.detail ?? null,
        JSON.stringify(rec.context ?? {}),
      ],
    );
    return toRecord(rows[0]);
  }

  async listFailed(filter: FailedFilter = {}): Promise<FailedExchange[]> {
    const { where, params } = whereOf(filter);
    params.push(Math.max(1, Math.min(filter.limit ?? 100, 10_000)));
    const { rows } = await this.sql.query(
      `SELECT ${COLUMNS} FROM failed_exchanges ${where}
       ORDER BY last_at DESC, id LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRecord);
  }

  async countFailed(filter: FailedFilter = {}): Promise<number> {
    const { where, params } = whereOf(filter);
    const { rows } = await this.sql.query(`SELECT count(*)::int AS n FROM failed_exchanges ${where}`, params);
    return Number(rows[0].n);
  }

  async getFailed(id: string): Promise<FailedExchange | undefined> {
    const { rows } = await this.sql.query(`SELECT ${COLUMNS} FROM failed_exchanges WHERE id = $1`, [id]);
    return rows.length ? toRecord(rows[0]) : undefined;
  }

  async countOpen(): Promise<number> {
    const { rows } = await this.sql.query(`SELECT count(*)::int AS n FROM failed_exchanges WHERE status = 'open'`);
    return Number(rows[0].n);
  }

  async claimForReplay(id: string, actor: string, staleMs = STALE_CLAIM_MS): Promise<FailedExchange | undefined> {
    // one UPDATE: of two replicas or operators claiming at once, the row lock lets one through
    const { rows } = await this.sql.query(
      `UPDATE failed_exchanges SET status = 'replaying', claimed_at = now(), settled_by = $2
       WHERE id = $1 AND (status = 'open'
         OR (status = 'replaying' AND claimed_at < now() - ($3::int * interval '1 millisecond')))
       RETURNING ${COLUMNS}`,
      [id, actor, Math.round(staleMs)],
    );
    return rows.length ? toRecord(rows[0]) : undefined;
  }

  async finishReplay(id: string, actor: string, outcome: ReplayOutcome): Promise<FailedExchange> {
    const { rows } = outcome.ok
      ? await this.sql.query(
          `UPDATE failed_exchanges SET status = 'replayed', claimed_at = NULL, settled_by = $2, settled_at = now()
           WHERE id = $1 RETURNING ${COLUMNS}`,
          [id, actor],
        )
      : await this.sql.query(
          `UPDATE failed_exchanges SET status = 'open', claimed_at = NULL, settled_by = $2, settled_at = now(),
             attempts = attempts + 1, last_at = now(), code = $3, cause = $4, detail = $5,
             trace_id = coalesce($6, trace_id), correlation_id = coalesce($7, correlation_id)
           WHERE id = $1 RETURNING ${COLUMNS}`,
          [
            id,
            actor,
            outcome.code,
            outcome.cause ?? null,
            outcome.detail ?? null,
            outcome.traceId ?? null,
            outcome.correlationId ?? null,
          ],
        );
    if (!rows.length) throw new Error(`no failed exchange '${id}'`);
    return toRecord(rows[0]);
  }

  async discard(id: string, actor: string): Promise<FailedExchange | undefined> {
    const { rows } = await this.sql.query(
      `UPDATE failed_exchanges SET status = 'discarded', settled_by = $2, settled_at = now()
       WHERE id = $1 AND status = 'open' RETURNING ${COLUMNS}`,
      [id, actor],
    );
    return rows.length ? toRecord(rows[0]) : undefined;
  }

  async appendAudit(entry: AuditInput): Promise<AuditEntry> {
    const { rows } = await this.sql.query(
      `INSERT INTO failed_audit (actor, action, records, outcome, via) VALUES ($1, $2, $3::text[], $4, $5)
       RETURNING id, at, actor, action, records, outcome, via`,
      [entry.actor, entry.action, entry.records, entry.outcome, entry.via ?? null],
    );
    return toAudit(rows[0]);
  }

  async listAudit(filter: AuditFilter = {}): Promise<AuditEntry[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.record !== undefined) {
      params.push(filter.record);
      where.push(`$${params.length} = ANY(records)`);
    }
    if (filter.actor !== undefined) {
      params.push(filter.actor);
      where.push(`actor = $${params.length}`);
    }
    if (filter.since) {
      params.push(filter.since.toISOString());
      where.push(`at >= $${params.length}`);
    }
    params.push(Math.max(1, Math.min(filter.limit ?? 100, 10_000)));
    const { rows } = await this.sql.query(
      `SELECT id, at, actor, action, records, outcome, via FROM failed_audit
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toAudit);
  }

  close(): Promise<void> {
    return this.closeFn();
  }
}

function whereOf(filter: FailedFilter): { where: string; params: unknown[] } {
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
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

const opt = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);

function toRecord(r: Record<string, unknown>): FailedExchange {
  return {
    id: String(r.id),
    route: String(r.route),
    routeVersion: opt(r.route_version),
    source: String(r.source),
    status: r.status as FailedStatus,
    code: String(r.code),
    cause: opt(r.cause),
    body: opt(r.body),
    headers: (json(r.headers) ?? {}) as Record<string, string>,
    attempts: Number(r.attempts),
    firstAt: new Date(r.first_at as string | Date),
    lastAt: new Date(r.last_at as string | Date),
    traceId: opt(r.trace_id),
    correlationId: opt(r.correlation_id),
    detail: opt(r.detail),
    context: (json(r.context) ?? {}) as Record<string, unknown>,
    settledBy: opt(r.settled_by),
    settledAt: r.settled_at ? new Date(r.settled_at as string | Date) : undefined,
  };
}

function toAudit(r: Record<string, unknown>): AuditEntry {
  return {
    id: Number(r.id),
    at: new Date(r.at as string | Date),
    actor: String(r.actor),
    action: r.action as AuditEntry['action'],
    records: (Array.isArray(r.records) ? r.records : []).map(String),
    outcome: String(r.outcome),
    via: opt(r.via),
  };
}
