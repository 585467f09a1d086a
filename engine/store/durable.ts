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
}

export type FailedStatus = 'open' | 'replayed' | 'discarded';

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

export interface DurableStore {
  readonly kind: 'postgres' | 'embedded';
  recordFailed(rec: FailedExchangeInput): Promise<FailedExchange>;
  listFailed(filter?: FailedFilter): Promise<FailedExchange[]>;
  getFailed(id: string): Promise<FailedExchange | undefined>;
  /** how many records are open (the gauge of open records) */
  countOpen(): Promise<number>;
  close(): Promise<void>;
}

/** The durable store cannot be reached or opened. Never carries the URL. */
export class DurableStoreUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the durable store is unavailable', { cause });
    this.name = 'DurableStoreUnavailableError';
  }
}
