// The gateway's audit trail as rows of the durable store (table gateway_audit, migration 004): each
// row's hash is sha256 over its canonical record, which holds the previous row's hash, so editing,
// removing or reordering a row breaks the chain at that row. Appends take the table's lock in their
// transaction: replicas writing at once queue there and extend one chain, with no gap in `seq`.

import { canonical as canonicalArgs } from './tools.ts';
import { hash } from 'node:crypto';
import type { SqlClient } from '../store/durable.ts';
import type { AuditEntry, AuditKind } from './audit-hook.ts';

/** The previous hash of the first record. */
export const GENESIS = '0'.repeat(64);

/** `gap`: decisions the trail could not keep (its queue was full); written by the trail itself. */
export type RecordKind = AuditKind | 'gap';

/** One stored record: the entry's fields, its place in the chain and its time. */
export interface AuditRecord extends Omit<AuditEntry, 'kind' | 'at'> {
  seq: number;
  at: string;
  kind: RecordKind;
  prevHash: string;
  hash: string;
}

/** The entry fields, in the order they are hashed, and their columns. */
const FIELDS = [
  ['tool', 'tool'],
  ['subscription', 'subscription'],
  ['keyId', 'key_id'],
  ['user', 'user_id'],
  ['issuer', 'issuer'],
  ['jti', 'jti'],
  ['argsDigest', 'args_digest'],
  ['outcome', 'outcome'],
  ['code', 'code'],
  ['check', 'check_name'],
  ['detail', 'detail'],
  ['correlationId', 'correlation_id'],
  ['clientIp', 'client_ip'],
] as const satisfies readonly (readonly [keyof AuditEntry, string])[];

type Field = (typeof FIELDS)[number][0];

/** An entry as it is written: kind and time fixed, every field a string or absent. */
export type PendingRecord = { kind: RecordKind; at: string } & Partial<Record<Field, string>>;

/** Longest text kept in one field: a client-chosen tool name or detail cannot grow a row without bound. */
const MAX_FIELD = 512;

/** The entry as the trail writes it (time now when it has none; long fields cut). */
export function pending(e: AuditEntry | (Omit<AuditEntry, 'kind'> & { kind: RecordKind })): PendingRecord {
  const at = e.at ? new Date(e.at) : new Date();
  const rec: PendingRecord = { kind: e.kind, at: (Number.isNaN(at.getTime()) ? new Date() : at).toISOString() };
  for (let i = 0; i < FIELDS.length; i++) {
    const f = FIELDS[i][0];
    const v = e[f];
    if (v === undefined || v === null || v === '') continue;
    const s = typeof v === 'string' ? v : String(v);
    rec[f] = s.length > MAX_FIELD ? s.slice(0, MAX_FIELD) : s;
  }
  return rec;
}

/** `sha256:<hex>` of the arguments' canonical JSON: what was asked, without what was asked. */
export function argsDigest(args: unknown): string {
  return `sha256:${hash('sha256', canonicalArgs(args) ?? 'null')}`;
}

/** The canonical text a record's hash is taken over: fixed member order, absent fields null. */
function canonical(seq: number, r: PendingRecord, prevHash: string): string {
  const o: Record<string, unknown> = { seq, at: r.at, kind: r.kind };
  for (const [f] of FIELDS) o[f] = r[f] ?? null;
  o.prevHash = prevHash;
  return JSON.stringify(o);
}

export function recordHash(seq: number, r: PendingRecord, prevHash: string): string {
  return hash('sha256', canonical(seq, r, prevHash));
}

/**
 * Appends the records in order, in one transaction under the table's lock (SHARE ROW EXCLUSIVE:
 * writers wait for each other, readers do not). The rows go as one JSON parameter expanded by
 * json_populate_recordset: one parameter instead of 18 per row costs both stores less to bind (the
 * embedded store about half as much per row). Returns the seq of the last one.
 */
export async function appendRecords(sql: SqlClient, recs: PendingRecord[]): Promise<number> {
  if (!recs.length) return 0;
  return sql.transaction(async (tx) => {
    await tx.query('LOCK TABLE gateway_audit IN SHARE ROW EXCLUSIVE MODE');
    const { rows } = await tx.query('SELECT seq, hash FROM gateway_audit ORDER BY seq DESC LIMIT 1');
    let seq = rows.length ? Number(rows[0].seq) : 0;
    let prev = rows.length ? String(rows[0].hash) : GENESIS;
    const out: Record<string, unknown>[] = [];
    for (const r of recs) {
      seq++;
      const hash = recordHash(seq, r, prev);
      const row: Record<string, unknown> = { seq, at: r.at, kind: r.kind, prev_hash: prev, hash };
      for (const [f, c] of FIELDS) row[c] = r[f] ?? null;
      out.push(row);
      prev = hash;
    }
    await tx.query('INSERT INTO gateway_audit SELECT * FROM json_populate_recordset(NULL::gateway_audit, $1::json)', [
      JSON.stringify(out),
    ]);
    return seq;
  });
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

function fromRow(row: Record<string, unknown>): AuditRecord {
  const rec: AuditRecord = {
    seq: Number(row.seq),
    at: iso(row.at),
    kind: String(row.kind) as RecordKind,
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
  };
  for (const [f, c] of FIELDS) if (row[c] !== null && row[c] !== undefined) rec[f] = String(row[c]);
  return rec;
}

export interface AuditListFilter {
  user?: string;
  tool?: string;
  kind?: string;
  subscription?: string;
  /** at or after */
  since?: Date;
  until?: Date;
  /** most records, newest first (default 100, at most 10,000) */
  limit?: number;
}

/** Records matching the filter, newest first. */
export async function listRecords(sql: Pick<SqlClient, 'query'>, f: AuditListFilter = {}): Promise<AuditRecord[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (cond: string, v: unknown) => {
    params.push(v);
    where.push(cond.replace('?', `$${params.length}`));
  };
  if (f.user) add('user_id = ?', f.user);
  if (f.tool) add('tool = ?', f.tool);
  if (f.kind) add('kind = ?', f.kind);
  if (f.subscription) add('subscription = ?', f.subscription);
  if (f.since) add('at >= ?', f.since.toISOString());
  if (f.until) add('at < ?', f.until.toISOString());
  const limit = Math.min(Math.max(1, Math.floor(f.limit ?? 100)), 10_000);
  const { rows } = await sql.query(
    `SELECT * FROM gateway_audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ${limit}`,
    params,
  );
  return rows.map(fromRow);
}

export interface VerifyResult {
  ok: boolean;
  /** records read */
  records: number;
  /** the last record's seq and hash (note them elsewhere: a chain cannot show its own tail cut off) */
  head?: { seq: number; hash: string };
  /** one line per problem found, e.g. `record 7: hash mismatch ...` (the first `maxProblems`) */
  problems: string[];
}

/** Rows read per query while verifying. */
const PAGE = 1000;

/**
 * Walks the chain in seq order. Each record's hash is recomputed from its fields; its prev_hash must
 * be the stored hash of the record before it, and seqs run 1, 2, 3... without a gap. Every problem
 * is compared with the stored neighbours, so one edited record is named once, not with all after it.
 */
export async function verifyChain(sql: Pick<SqlClient, 'query'>, maxProblems = 20): Promise<VerifyResult> {
  const problems: string[] = [];
  let expected = 1;
  let prev = GENESIS;
  let records = 0;
  let head: VerifyResult['head'];
  for (let after = 0; ;) {
    const { rows } = await sql.query(`SELECT * FROM gateway_audit WHERE seq > $1 ORDER BY seq LIMIT ${PAGE}`, [after]);
    for (const row of rows) {
      const r = fromRow(row);
      records++;
      if (r.seq !== expected)
        problems.push(
          r.seq > expected
            ? `record ${expected}${r.seq - 1 > expected ? `-${r.seq - 1}` : ''}: missing (the chain goes from ${expected - 1} to ${r.seq})`
            : `record ${r.seq}: out of order (expected ${expected})`,
        );
      const pendingRec: PendingRecord = { ...r, kind: r.kind, at: r.at };
      const computed = recordHash(r.seq, pendingRec, r.prevHash);
      if (computed !== r.hash)
        problems.push(
          `record ${r.seq}: hash mismatch (stored ${r.hash.slice(0, 12)}…, its contents hash to ${computed.slice(0, 12)}…): the record was changed`,
        );
      if (r.prevHash !== prev)
        problems.push(
          `record ${r.seq}: previous hash mismatch (it names ${r.prevHash.slice(0, 12)}…, the record before it has ${prev.slice(0, 12)}…): a record before it was changed, removed or moved`,
        );
      prev = r.hash;
      expected = r.seq + 1;
      head = { seq: r.seq, hash: r.hash };
      after = r.seq;
    }
    if (rows.length < PAGE || problems.length >= maxProblems) break;
  }
  return { ok: problems.length === 0, records, head, problems: problems.slice(0, maxProblems) };
}
