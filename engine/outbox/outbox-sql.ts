// The outbox table's statements (migration 002_outbox.sql), one SQL for PostgreSQL and PGlite.

import type { SqlClient } from '../store/durable.ts';

type Query = Pick<SqlClient, 'query'>;

/** What the publisher needs to send one event, and the webhook it came from (for a failed exchange). */
export interface OutboxEntry {
  route: string;
  routeVersion?: string;
  /**
   * the key the dedupe step claimed; (route, key, event id) is unique while the row waits, so the
   * row is the key's durable mark (one webhook may give several events: one per split item)
   */
  dedupeKey?: string;
  /** events of one key are published in order of arrival */
  orderKey: string;
  eventId: string;
  eventType: string;
  url: string;
  headers: Record<string, string>;
  /** the CloudEvent as JSON text, sent as is */
  event: string;
  inputBody?: string;
  inputHeaders: Record<string, string>;
  inputContext: Record<string, unknown>;
  traceId?: string;
  correlationId?: string;
}

export interface PendingEntry extends OutboxEntry {
  seq: string;
  attempts: number;
  createdAt: Date;
}

/** Inserts the entry; false when a row with its route, dedupe key and event id waits already (a duplicate). */
export async function insertEntry(sql: Query, e: OutboxEntry): Promise<boolean> {
  const { rows } = await sql.query(
    `INSERT INTO outbox (route, route_version, dedupe_key, order_key, event_id, event_type, url, headers, event,
       input_body, input_headers, input_context, trace_id, correlation_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11::jsonb, $12::jsonb, $13, $14)
     ON CONFLICT (route, dedupe_key, event_id) DO NOTHING
     RETURNING seq`,
    [
      e.route,
      e.routeVersion ?? null,
      e.dedupeKey ?? null,
      e.orderKey,
      e.eventId,
      e.eventType,
      e.url,
      JSON.stringify(e.headers),
      e.event,
      e.inputBody ?? null,
      JSON.stringify(e.inputHeaders),
      JSON.stringify(e.inputContext),
      e.traceId ?? null,
      e.correlationId ?? null,
    ],
  );
  return rows.length === 1;
}

/**
 * The oldest rows that may go now: per order key only its oldest row (an earlier row of the key,
 * even one another replica holds, keeps the later ones back). `lock`: FOR UPDATE SKIP LOCKED, so
 * replicas draining together take different rows (PostgreSQL; PGlite has one process).
 */
export async function claimEntries(sql: Query, limit: number, lock: boolean): Promise<PendingEntry[]> {
  const { rows } = await sql.query(
    `SELECT o.seq, o.route, o.route_version, o.dedupe_key, o.order_key, o.event_id, o.event_type, o.url, o.headers,
       o.event, o.input_body, o.input_headers, o.input_context, o.trace_id, o.correlation_id, o.attempts, o.created_at
     FROM outbox o
     WHERE NOT EXISTS (SELECT 1 FROM outbox p WHERE p.order_key = o.order_key AND p.seq < o.seq)
     ORDER BY o.seq
     LIMIT $1${lock ? ' FOR UPDATE OF o SKIP LOCKED' : ''}`,
    [limit],
  );
  return rows.map(toEntry);
}

/** Removes published (or refused and recorded) rows. */
export async function deleteEntries(sql: Query, seqs: string[]): Promise<void> {
  if (!seqs.length) return;
  await sql.query(`DELETE FROM outbox WHERE seq IN (${seqs.map((_, i) => `$${i + 1}`).join(', ')})`, seqs);
}

/** A row that could not go yet: one more attempt and its last error. */
export async function noteAttempt(sql: Query, seq: string, error: string): Promise<void> {
  await sql.query('UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE seq = $1', [seq, error]);
}

export async function countEntries(sql: Query): Promise<number> {
  const { rows } = await sql.query('SELECT count(*)::int AS n FROM outbox');
  return Number(rows[0].n);
}

function json<T>(v: unknown): T {
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}

function toEntry(r: Record<string, unknown>): PendingEntry {
  const opt = (v: unknown) => (v === null || v === undefined ? undefined : String(v));
  return {
    seq: String(r.seq),
    route: String(r.route),
    routeVersion: opt(r.route_version),
    dedupeKey: opt(r.dedupe_key),
    orderKey: String(r.order_key),
    eventId: String(r.event_id),
    eventType: String(r.event_type),
    url: String(r.url),
    headers: json(r.headers),
    event: String(r.event),
    inputBody: opt(r.input_body),
    inputHeaders: json(r.input_headers),
    inputContext: json(r.input_context),
    traceId: opt(r.trace_id),
    correlationId: opt(r.correlation_id),
    attempts: Number(r.attempts),
    createdAt: r.created_at instanceof Date ? r.created_at : new Date(String(r.created_at)),
  };
}
