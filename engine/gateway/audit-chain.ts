// The gateway's audit trail as rows of the durable store (table gateway_audit, migration 004): each
// row's hash is sha256 over its canonical record, which holds the previous row's hash, so editing,
// removing or reordering a row breaks the chain at that row. Appends take the table's lock in their
// transaction: replicas writing at once queue there and extend one chain, with no gap in `seq`.

import { canonical as canonicalArgs } from './tools.ts';
import { hash } from 'node:crypto';
import { isoAt } from './iso-now.ts';
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

/** A field as the trail keeps it: a string, absent when empty, at most MAX_FIELD long. */
function kept(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const s = typeof v === 'string' ? v : String(v);
  return s.length > MAX_FIELD ? s.slice(0, MAX_FIELD) : s;
}

/**
 * The entry as the trail writes it (time now when it has none; long fields cut). Every field is
 * named here, in FIELDS' order, rather than copied in a loop over FIELDS: one object shape for
 * every record, no keyed property access per field on the request's path.
 */
export function pending(e: AuditEntry | (Omit<AuditEntry, 'kind'> & { kind: RecordKind })): PendingRecord {
  let at: string;
  if (e.at) {
    const d = new Date(e.at);
    at = (Number.isNaN(d.getTime()) ? new Date() : d).toISOString();
  } else at = isoAt(Date.now());
  return {
    kind: e.kind,
    at,
    tool: kept(e.tool),
    subscription: kept(e.subscription),
    keyId: kept(e.keyId),
    user: kept(e.user),
    issuer: kept(e.issuer),
    jti: kept(e.jti),
    argsDigest: kept(e.argsDigest),
    outcome: kept(e.outcome),
    code: kept(e.code),
    check: kept(e.check),
    detail: kept(e.detail),
    correlationId: kept(e.correlationId),
    clientIp: kept(e.clientIp),
  };
}

/** `sha256:<hex>` of the arguments' canonical JSON: what was asked, without what was asked. */
export function argsDigest(args: unknown): string {
  return `sha256:${hash('sha256', canonicalArgs(args) ?? 'null')}`;
}

/**
 * The canonical text a record's hash is taken over: fixed member order (seq, at, kind, FIELDS,
 * prevHash), absent fields null. One object literal of one shape, serialised at once.
 */
function canonicalRecord(seq: number, r: PendingRecord, prevHash: string): string {
  return JSON.stringify({
    seq,
    at: r.at,
    kind: r.kind,
    tool: r.tool ?? null,
    subscription: r.subscription ?? null,
    keyId: r.keyId ?? null,
    user: r.user ?? null,
    issuer: r.issuer ?? null,
    jti: r.jti ?? null,
    argsDigest: r.argsDigest ?? null,
    outcome: r.outcome ?? null,
    code: r.code ?? null,
    check: r.check ?? null,
    detail: r.detail ?? null,
    correlationId: r.correlationId ?? null,
    clientIp: r.clientIp ?? null,
    prevHash,
  });
}

export function recordHash(seq: number, r: PendingRecord, prevHash: string): string {
  return hash('sha256', canonicalRecord(seq, r, prevHash));
}

/**
 * The rows as json_to_recordset reads them: each record's canonical JSON with its hash added, so
 * a row is serialised once (for its hash) rather than again for the insert; the JSON names are
 * mapped to the columns here.
 */
const INSERT = `INSERT INTO gateway_audit (seq, at, kind, ${FIELDS.map(([, c]) => c).join(', ')}, prev_hash, hash)
SELECT seq, at, kind, ${FIELDS.map(([f]) => `"${f}"`).join(', ')}, "prevHash", hash
FROM json_to_recordset($1::json) AS r(seq bigint, at timestamptz, kind text, ${FIELDS.map(([f]) => `"${f}" text`).join(', ')}, "prevHash" text, hash text)`;

/**
 * Appends the records in order, in one transaction under the table's lock (SHARE ROW EXCLUSIVE:
 * writers wait for each other, readers do not). The rows go as one JSON parameter: one parameter
 * instead of 18 per row costs both stores less to bind (the embedded store about half as much per
 * row). Returns the seq of the last one.
 */
export async function appendRecords(sql: SqlClient, recs: PendingRecord[]): Promise<number> {
  if (!recs.length) return 0;
  return sql.transaction(async (tx) => {
    await tx.query('LOCK TABLE gateway_audit IN SHARE ROW EXCLUSIVE MODE');
    const { rows } = await tx.query('SELECT seq, hash FROM gateway_audit ORDER BY seq DESC LIMIT 1');
    let seq = rows.length ? Number(rows[0].seq) : 0;
    let prev = rows.length ? String(rows[0].hash) : GENESIS;
    let json = '';
    for (const r of recs) {
      seq++;
      const text = canonicalRecord(seq, r, prev);
      const h = hash('sha256', text);
      // `{...,"prevHash":"…"}` becomes `{...,"prevHash":"…","hash":"…"}`
      json += `${json ? ',' : '['}${text.slice(0, -1)},"hash":"${h}"}`;
      prev = h;
    }
    await tx.query(INSERT, [`${json}]`]);
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
