// The gateway limit's audit trail, written by hand: the gateway's decision records (one per call or
// refusal) in the same table (engine/store/migrations/004, in a schema of its own), hash-chained
// exactly as engine/gateway/audit-chain.ts does, so `engine audit verify` checks it. Per call: the
// arguments' digest and the record in one object shape; every 50 ms (or at 1,000 records) one
// transaction on one connection takes the table's lock, reads the chain's head, hashes the batch
// and inserts it as one JSON parameter (each record's canonical JSON with its hash), as replicas
// sharing one chain must.
import { hash } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../engine/store/migrate.ts';
// the engine's small pure helpers, as the FX limit uses its ajv set-up: the same cost on both sides
import type { AuditEntry } from '../../engine/gateway/audit-hook.ts';
import { isoAt } from '../../engine/gateway/iso-now.ts';
import { canonical } from '../../engine/gateway/tools.ts';

/** A decision of the limit: the gateway's record fields, of its two kinds (audit-hook.ts). */
export type Decision = Omit<AuditEntry, 'at' | 'kind'> & { kind: 'call' | 'refusal' };

export const argsDigest = (args: unknown) => `sha256:${hash('sha256', canonical(args) ?? 'null')}`;

/** A record as queued: one object shape, every field named (null when absent). */
interface Pending {
  at: string;
  kind: string;
  tool: string | null;
  subscription: string | null;
  keyId: string | null;
  user: string | null;
  issuer: string | null;
  jti: string | null;
  argsDigest: string | null;
  outcome: string | null;
  code: string | null;
  check: string | null;
  detail: string | null;
  correlationId: string | null;
  clientIp: string | null;
}

const COLUMNS =
  'seq, at, kind, tool, subscription, key_id, user_id, issuer, jti, args_digest, outcome, code, check_name, detail, correlation_id, client_ip, prev_hash, hash';
const NAMES =
  'seq, at, kind, tool, subscription, "keyId", "user", issuer, jti, "argsDigest", outcome, code, "check", detail, "correlationId", "clientIp", "prevHash", hash';
const TYPES =
  'seq bigint, at timestamptz, kind text, tool text, subscription text, "keyId" text, "user" text, issuer text, jti text, "argsDigest" text, outcome text, code text, "check" text, detail text, "correlationId" text, "clientIp" text, "prevHash" text, hash text';

export class LimitAudit {
  private queue: Pending[] = [];
  private timer?: NodeJS.Timeout;
  private insert: string;

  private constructor(
    private db: Pick<pg.Client, 'query'>,
    private table: string,
  ) {
    this.insert = `INSERT INTO ${table} (${COLUMNS}) SELECT ${NAMES} FROM json_to_recordset($1::json) AS r(${TYPES})`;
  }

  static async open(url: string, schema = 'gateway_limit'): Promise<LimitAudit> {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await migrate({ query: (t, p) => db.query(t, p), exec: async (s) => void (await db.query(s)) }, schema);
    return new LimitAudit(db, `"${schema}".gateway_audit`);
  }

  record(d: Decision): void {
    this.queue.push({
      at: isoAt(Date.now()),
      kind: d.kind,
      tool: d.tool ?? null,
      subscription: d.subscription ?? null,
      keyId: d.keyId ?? null,
      user: d.user ?? null,
      issuer: d.issuer ?? null,
      jti: d.jti ?? null,
      argsDigest: d.argsDigest ?? null,
      outcome: d.outcome ?? null,
      code: d.code ?? null,
      check: d.check ?? null,
      detail: d.detail ?? null,
      correlationId: d.correlationId ?? null,
      clientIp: d.clientIp ?? null,
    });
    this.timer ??= setTimeout(() => this.write(), 50);
  }

  private async write(): Promise<void> {
    const batch = this.queue.splice(0, 1000);
    try {
      await this.db.query('BEGIN');
      await this.db.query(`LOCK TABLE ${this.table} IN SHARE ROW EXCLUSIVE MODE`);
      const { rows } = await this.db.query(`SELECT seq, hash FROM ${this.table} ORDER BY seq DESC LIMIT 1`);
      let seq = rows.length ? Number(rows[0].seq) : 0;
      let prev = rows.length ? String(rows[0].hash) : '0'.repeat(64);
      let json = '';
      for (const p of batch) {
        seq++;
        // the canonical record (audit-chain.ts): seq, at, kind, the fields, prevHash; the row adds its hash
        const text = JSON.stringify({
          seq,
          at: p.at,
          kind: p.kind,
          tool: p.tool,
          subscription: p.subscription,
          keyId: p.keyId,
          user: p.user,
          issuer: p.issuer,
          jti: p.jti,
          argsDigest: p.argsDigest,
          outcome: p.outcome,
          code: p.code,
          check: p.check,
          detail: p.detail,
          correlationId: p.correlationId,
          clientIp: p.clientIp,
          prevHash: prev,
        });
        const h = hash('sha256', text);
        json += `${json ? ',' : '['}${text.slice(0, -1)},"hash":"${h}"}`;
        prev = h;
      }
      await this.db.query(this.insert, [`${json}]`]);
      await this.db.query('COMMIT');
    } catch (e) {
      // a benchmark's limit: a failed write is loud, not retried
      process.stderr.write(`gateway limit: audit write failed: ${(e as Error).message}\n`);
      await this.db.query('ROLLBACK').catch(() => {});
    }
    this.timer = undefined;
    if (this.queue.length) this.timer = setTimeout(() => this.write(), this.queue.length >= 1000 ? 0 : 50);
  }
}
