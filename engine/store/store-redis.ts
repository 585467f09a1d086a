// The store shared by replicas, in Redis. A claim is one atomic script: an absent key is set to
// this exchange's token with the in-flight timeout (so a replica that dies mid-exchange frees it),
// a present one is answered as done or busy. Completing overwrites it with a done marker for the
// key's ttl; releasing deletes it only while it still holds this exchange's token.

import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import {
  StoreUnavailableError,
  type Claim,
  type ClaimSet,
  type ClaimSetOptions,
  type RecordSet,
  type RecordSetOptions,
  type SharedStore,
} from './store.ts';

// KEYS[1]: the key; ARGV[1]: the claim value; ARGV[2]: in-flight timeout ms. 1: claimed, else the value held.
const CLAIM = `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;
// KEYS[1]: the key; ARGV[1]: the claim value to take back
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
const DONE = 'd';
const DONE_CLAIM: Claim = { state: 'done' };
const BUSY: Claim = { state: 'busy' };

interface Scripted extends Redis {
  storeClaim(key: string, value: string, ms: number): Promise<number | string>;
  storeRelease(key: string, value: string): Promise<number>;
}

class RedisClaims implements ClaimSet {
  constructor(
    private store: RedisStore,
    private base: string,
    private ttlMs: number,
  ) {}

  async claim(key: string): Promise<Claim> {
    const token = this.store.token();
    const r = await this.store.run((c) => c.storeClaim(this.base + key, token, this.store.inFlightMs));
    if (r === 1) return { state: 'claimed', token };
    return r === DONE ? DONE_CLAIM : BUSY;
  }

  async complete(key: string): Promise<void> {
    await this.store.run((c) => c.set(this.base + key, DONE, 'PX', this.ttlMs));
  }

  async release(key: string, token: string): Promise<void> {
    await this.store.run((c) => c.storeRelease(this.base + key, token));
  }
}

class RedisRecords implements RecordSet {
  constructor(
    private store: RedisStore,
    private base: string,
    private ttlMs: number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.store.run((c) => c.get(this.base + key))) ?? undefined;
  }

  async set(key: string, value: string, ttlMs = this.ttlMs): Promise<void> {
    await this.store.run((c) => c.set(this.base + key, value, 'PX', Math.max(1, Math.round(ttlMs))));
  }

  /** GETDEL (Redis 6.2): one replica of two racing gets the record */
  async take(key: string): Promise<string | undefined> {
    return (await this.store.run((c) => c.getdel(this.base + key))) ?? undefined;
  }
}

export interface RedisStoreSettings {
  url: string;
  prefix: string;
  commandTimeout: number;
}

export class RedisStore implements SharedStore {
  readonly kind = 'redis';
  private client: Scripted;
  private down = false;
  private seq = 0;
  // tokens name the replica and the exchange, so only the claimant can release a claim
  private readonly id = randomBytes(6).toString('base64url');

  constructor(
    private settings: RedisStoreSettings,
    readonly inFlightMs: number,
    private log: Logger,
  ) {
    // the offline queue lets the first requests wait for the connection; commandTimeout bounds
    // every wait, so an outage is answered within it instead of hanging the exchange
    // loaded only when a Redis is configured: one process with memory never pays for the client
    const { Redis: Client } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.client = new Client(settings.url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      connectTimeout: settings.commandTimeout,
      commandTimeout: settings.commandTimeout,
    }) as Scripted;
    this.client.defineCommand('storeClaim', { numberOfKeys: 1, lua: CLAIM });
    this.client.defineCommand('storeRelease', { numberOfKeys: 1, lua: RELEASE });
    this.client.on('error', (e: Error) => this.failed(e));
    this.client.on('ready', () => {
      if (this.down) this.back();
    });
  }

  token(): string {
    return `c${this.id}:${++this.seq}`;
  }

  /** Runs a command; any failure is a StoreUnavailableError (logged once per outage). */
  async run<T>(fn: (c: Scripted) => Promise<T>): Promise<T> {
    try {
      const r = await fn(this.client);
      if (this.down) this.back();
      return r;
    } catch (e) {
      this.failed(e as Error);
      throw new StoreUnavailableError(e);
    }
  }

  private back(): void {
    this.down = false;
    this.log.info('store: Redis reachable again');
  }

  private failed(e: Error): void {
    if (this.down) return;
    this.down = true;
    // the message names host and port at most; the URL (which may hold a password) is never logged
    this.log.warn(
      { err: { message: e.message } },
      'store: Redis unavailable; each use applies its outage policy until it is back (dedupe: 503 with Retry-After)',
    );
  }

  claims(opts: ClaimSetOptions): ClaimSet {
    return new RedisClaims(this, `${this.settings.prefix}claim:${opts.namespace}:`, opts.ttlMs);
  }

  records(opts: RecordSetOptions): RecordSet {
    return new RedisRecords(this, `${this.settings.prefix}rec:${opts.namespace}:`, opts.ttlMs);
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
