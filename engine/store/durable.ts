// The durable store: what must survive a restart (failed exchanges today; the outbox, replays and
// their audit next). PostgreSQL when configured (durable-pg.ts), else PGlite in a data folder
// (durable-pglite.ts); both run the same SQL (durable-sql.ts) and the same migrations (migrate.ts).
// Short-lived claims and counters stay in store.ts (memory or Redis).

/**
 * One input that failed for good, as recorded: the original input, so that it can run again, with
 * no credential among its headers (never a token or key); shown masked by the one masking policy.
 */
export interface FailedExchangeInput {
  /** the route id */
  route: string;
  /** digest of the route's files when it failed */
  routeVersion?: string;
  /** the `from` kind: amqp, webhook, cron, http */
  source: string;
  /** the mapped platform error code */
  code: string;
  /** the raw cause (masked: a vendor may echo a credential into it) */
  cause?: string;
  /** the original input's body, as received (to run it again) */
  body?: string;
  /** the headers needed to run the input again (never credentials) */
  headers?: Record<string, string>;
  attempts?: number;
  firstAt?: Date;
  lastAt?: Date;
  traceId?: string;
  correlationId?: string;
  /** the mapped error's detail, as answered or logged */
  detail?: string;
  /**
   * What a replay needs besides body and headers, by source: amqp `{ messageId, queue, subject,
   * contentType, correlationId }`; http `{ method, path, query, params }`; cron `{}`.
   */
  context?: Record<string, unknown>;
}

/** open: waits for an operator; replaying: one replay holds it (claimForReplay); then replayed or discarded. */
export type FailedStatus = 'open' | 'replaying' | 'replayed' | 'discarded';

export interface FailedExchange extends Required<Pick<FailedExchangeInput, 'route' | 'source' | 'code'>> {
  id: string;
  routeVersion?: string;
  status: FailedStatus;
  cause?: string;
  body?: string;
  headers: Record<string, string>;
  attempts: number;
  firstAt: Date;
  lastAt: Date;
  traceId?: string;
  correlationId?: string;
  detail?: string;
  context: Record<string, unknown>;
  /** who last replayed or discarded it, and when */
  settledBy?: string;
  settledAt?: Date;
}

export interface FailedFilter {
  route?: string;
  code?: string;
  status?: FailedStatus;
  /** last failure at or after */
  since?: Date;
  /** last failure before */
  until?: Date;
  /** most records returned, newest first (default 100) */
  limit?: number;
}

/** How a replay ended, for finishReplay. */
export type ReplayOutcome =
  { ok: true } | { ok: false; code: string; cause?: string; detail?: string; traceId?: string; correlationId?: string };

/** One replay or discard by an operator: append-only. */
export interface AuditInput {
  /** the console user, `--as`, or the OS user */
  actor: string;
  action: 'replay' | 'discard';
  /** the failed exchange ids it acted on */
  records: string[];
  /** e.g. `replayed`, `failed again: GC027`, `discarded`, `refused: already discarded` */
  outcome: string;
  /** how it was asked: `cli`, `console` */
  via?: string;
}

export interface AuditEntry extends AuditInput {
  id: number;
  at: Date;
}

export interface AuditFilter {
  /** entries naming this failed exchange id */
  record?: string;
  actor?: string;
  since?: Date;
  /** most entries, newest first (default 100) */
  limit?: number;
}

/** A SQL session both databases offer (pg pool, PGlite); what feature modules (the outbox) build on. */
export interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /** several statements, no parameters (a migration file) */
  exec(sql: string): Promise<void>;
  /** runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws */
  transaction<T>(fn: (tx: Pick<SqlClient, 'query'>) => Promise<T>): Promise<T>;
}

export interface DurableStore {
  readonly kind: 'postgres' | 'embedded';
  /** the store's own SQL session (tables in its schema), for features with tables of their own */
  readonly sql: SqlClient;
  recordFailed(rec: FailedExchangeInput): Promise<FailedExchange>;
  listFailed(filter?: FailedFilter): Promise<FailedExchange[]>;
  /** how many records match (no limit): the dry-run count of a bulk replay or discard */
  countFailed(filter?: FailedFilter): Promise<number>;
  getFailed(id: string): Promise<FailedExchange | undefined>;
  /** how many records are open (the gauge of open records) */
  countOpen(): Promise<number>;
  /**
   * Takes an open record for one replay (open -> replaying, atomically: of two operators replaying
   * it at once, one gets it). Undefined when it is not open (unknown, discarded, replayed, or being
   * replayed; a claim older than `staleMs`, default 10 minutes, counts as open again).
   */
  claimForReplay(id: string, actor: string, staleMs?: number): Promise<FailedExchange | undefined>;
  /** ends a claimed replay: replayed, or open again with attempts + 1 and the new cause */
  finishReplay(id: string, actor: string, outcome: ReplayOutcome): Promise<FailedExchange>;
  /** open -> discarded; undefined when it is not open */
  discard(id: string, actor: string): Promise<FailedExchange | undefined>;
  appendAudit(entry: AuditInput): Promise<AuditEntry>;
  listAudit(filter?: AuditFilter): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

/** The durable store cannot be reached or opened. Never carries the URL. */
export class DurableStoreUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the durable store is unavailable', { cause });
    this.name = 'DurableStoreUnavailableError';
  }
}
