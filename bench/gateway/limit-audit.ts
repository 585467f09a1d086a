// The gateway limit's audit trail, written by hand: the gateway's decision records (one per call or
// refusal) in the same table (engine/store/migrations/004, in a schema of its own), hash-chained
// exactly as engine/gateway/audit-chain.ts does, so `engine audit verify` checks it. Per call: the
// arguments' digest and one line of canonical JSON; every 50 ms (or at 1,000 records) one
// transaction on one connection takes the table's lock, reads the chain's head, hashes the batch
// and inserts it as one JSON parameter, as replicas sharing one chain must.
import { hash } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../engine/store/migrate.ts';

/** The record fields after seq, at and kind, in the order they are hashed (audit-chain.ts). */
export interface Decision {
  kind: 'call' | 'refusal';
  tool?: string;
  subscription?: string;
  keyId?: string;
  user?: string;
  issuer?: string;
  jti?: string;
  argsDigest?: string;
  outcome?: string;
  code?: string;
  check?: string;
  detail?: string;
  correlationId?: string;
  clientIp?: string;
}

const q = (v: string | undefined) => (v === undefined ? 'null' : JSON.stringify(v));

/** The canonical JSON of the arguments: keys sorted at every level, undefined members left out. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    let out = '';
    for (const k of Object.keys(v).sort()) {
      const m = (v as Record<string, unknown>)[k];
      if (m !== undefined) out += `${out ? ',' : ''}${JSON.stringify(k)}:${canonical(m)}`;
    }
    return `{${out}}`;
  }
  return JSON.stringify(v);
}

export const argsDigest = (args: unknown) => `sha256:${hash('sha256', canonical(args) ?? 'null')}`;

interface Pending {
  /** the canonical record between `"kind":...` and `"prevHash"`, without seq */
  middle: string;
  row: Record<string, unknown>;
}

export class LimitAudit {
  private queue: Pending[] = [];
  private timer?: NodeJS.Timeout;

  private constructor(
    private db: pg.Client,
    private table: string,
  ) {}

  static async open(url: string, schema = 'gateway_limit'): Promise<LimitAudit> {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await migrate({ query: (t, p) => db.query(t, p), exec: async (s) => void (await db.query(s)) }, schema);
    return new LimitAudit(db, `"${schema}".gateway_audit`);
  }

  record(d: Decision): void {
    const at = new Date().toISOString();
    // the same members as audit-chain.ts's canonical(): fixed order, absent fields null
    const middle = `"at":${q(at)},"kind":${q(d.kind)},"tool":${q(d.tool)},"subscription":${q(d.subscription)},"keyId":${q(d.keyId)},"user":${q(d.user)},"issuer":${q(d.issuer)},"jti":${q(d.jti)},"argsDigest":${q(d.argsDigest)},"outcome":${q(d.outcome)},"code":${q(d.code)},"check":${q(d.check)},"detail":${q(d.detail)},"correlationId":${q(d.correlationId)},"clientIp":${q(d.clientIp)}`;
    const row = {
      at,
      kind: d.kind,
      tool: d.tool ?? null,
      subscription: d.subscription ?? null,
      key_id: d.keyId ?? null,
      user_id: d.user ?? null,
      issuer: d.issuer ?? null,
      jti: d.jti ?? null,
      args_digest: d.argsDigest ?? null,
      outcome: d.outcome ?? null,
      code: d.code ?? null,
      check_name: d.check ?? null,
      detail: d.detail ?? null,
      correlation_id: d.correlationId ?? null,
      client_ip: d.clientIp ?? null,
    };
    this.queue.push({ middle, row });
    this.timer ??= setTimeout(() => this.write(), this.queue.length >= 1000 ? 0 : 50);
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
        const h = hash('sha256', `{"seq":${seq},${p.middle},"prevHash":"${prev}"}`);
        json += `${json ? ',' : '['}${JSON.stringify({ seq, ...p.row, prev_hash: prev, hash: h })}`;
        prev = h;
      }
      await this.db.query(
        `INSERT INTO ${this.table} SELECT * FROM json_populate_recordset(NULL::${this.table}, $1::json)`,
        [`${json}]`],
      );
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
