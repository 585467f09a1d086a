// The one store for what a replica remembers across requests: webhook dedupe claims, and small
// records with an expiry (the gateway's pending confirmations and tasks).
// Memory serves one process; with `engine.store.redis` (or ENGINE_STORE_REDIS_URL) every replica
// shares Redis (store-for.ts picks one). Each use states its own outage policy: the store only
// reports the outage.

/** The state of a key after a claim: this exchange holds it, it was processed, or another exchange holds it. */
export type Claim = { state: 'claimed'; token: string } | { state: 'done' } | { state: 'busy' };

/**
 * Keys processed at most once across replicas: `claim` takes a key for one in-flight exchange,
 * `complete` turns the claim into a done marker kept `ttlMs`, `release` gives it back (failure).
 * Results come synchronously from memory and as promises from Redis.
 */
export interface ClaimSet {
  claim(key: string): Claim | Promise<Claim>;
  complete(key: string, token: string): void | Promise<void>;
  release(key: string, token: string): void | Promise<void>;
}

export interface ClaimSetOptions {
  /** names the set inside the store (the route id): keys of different sets never meet */
  namespace: string;
  /** how long a done key is remembered, ms */
  ttlMs: number;
  /** most done keys kept in memory (Redis expires them by ttl only) */
  maxKeys: number;
}

/**
 * Small records kept a while (a pending confirmation, a task): `take` reads and deletes in one
 * step, so exactly one of two replicas racing for a record gets it. Memory answers synchronously,
 * Redis with promises.
 */
export interface RecordSet {
  get(key: string): string | undefined | Promise<string | undefined>;
  /** sets the record, kept `ttlMs` (default: the set's) */
  set(key: string, value: string, ttlMs?: number): void | Promise<void>;
  take(key: string): string | undefined | Promise<string | undefined>;
}

export interface RecordSetOptions {
  /** names the set inside the store: keys of different sets never meet */
  namespace: string;
  /** how long a record is kept, ms */
  ttlMs: number;
  /** most records kept in memory, the oldest dropped first (Redis expires them by ttl only) */
  maxKeys: number;
}

export interface SharedStore {
  readonly kind: 'memory' | 'redis';
  claims(opts: ClaimSetOptions): ClaimSet;
  records(opts: RecordSetOptions): RecordSet;
  close(): Promise<void>;
}

/** The store is unreachable: the caller applies its outage policy. Never carries the URL. */
export class StoreUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the shared store (Redis) is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}
