// Sliding-log rate limits. Every accepted call is remembered with its time for one window; a call
// at time t is accepted for a counter only while fewer than `limit` accepted calls lie in
// (t - window, t]. So any limit + 1 accepted calls of one counter span at least one full window:
// "at most N calls in any window-long span" holds exactly, with no burst across a boundary.
// One request checks several counters at once (the per-user or per-IP policy and, for tools/call,
// the subscription quota): if any is at its limit the request is refused and no counter moves,
// otherwise all move by one. Counters live in memory (a time-ordered log per key, 8 bytes per call
// in the window), or in Redis (a sorted set per key, one atomic Lua script per request, Redis's own
// clock) so several engine processes share one budget.

import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { StoreSettings } from '../config/engine-settings.ts';
import { effectiveStoreSettings } from '../store/store-for.ts';

export interface LimitCheck {
  key: string;
  limit: number;
}

export interface LimitResult {
  allowed: boolean;
  /** the counter that decided the headers: the refused one, or the one with the least room */
  limit: number;
  remaining: number;
  /** ms until that counter has room again (refused) or until its oldest counted call leaves the window */
  resetMs: number;
  key?: string;
  /** the counters could not be read (Redis down) and `onError: deny` refused the request */
  unavailable?: boolean;
  /** identifies this request's entries (when allowed), for release() */
  ticket?: string;
}

export interface Limiter {
  hit(checks: LimitCheck[], windowMs: number): LimitResult | Promise<LimitResult>;
  /** Takes back one accepted hit (the ticket of its result) from these counters. */
  release(keys: string[], ticket: string): void | Promise<void>;
  close(): Promise<void>;
  /** False while the counters cannot be read (a shared store that is down); absent: always readable. */
  available?(): boolean;
}

export type OnStoreError = 'allow' | 'deny';

export interface LimiterRedis {
  url: string;
  prefix: string;
  onError: OnStoreError;
}

/**
 * The Redis the limits use: the gateway's own `gateway.redis.url` when set (it wins), else the
 * engine's shared store (`engine.store.redis` or ENGINE_STORE_REDIS_URL) with the counters under
 * `<store prefix>rl:`, so one setting makes replicas share dedupe keys and limits alike. The outage
 * policy stays the gateway's `gateway.redis.onError`. Undefined: counters in memory.
 */
export function limiterRedis(
  gateway: LimiterRedis | undefined,
  store: StoreSettings | undefined,
  onError: OnStoreError = 'allow',
  env: NodeJS.ProcessEnv = process.env,
): LimiterRedis | undefined {
  if (gateway) return gateway;
  const shared = effectiveStoreSettings(store, env).redis;
  return shared ? { url: shared.url, prefix: `${shared.prefix}rl:`, onError } : undefined;
}

function decide(
  checks: LimitCheck[],
  counts: number[],
  resets: number[],
  allowed: boolean,
  ticket?: string,
): LimitResult {
  let best = -1;
  let bestRoom = Infinity;
  for (let i = 0; i < checks.length; i++) {
    const room = checks[i].limit - counts[i];
    if (!allowed ? room <= 0 && best < 0 : room < bestRoom) {
      best = i;
      bestRoom = room;
    }
  }
  if (best < 0) best = 0;
  const r: LimitResult = {
    allowed,
    limit: checks[best].limit,
    remaining: Math.max(0, checks[best].limit - counts[best]),
    resetMs: Math.max(0, resets[best]),
    key: checks[best].key,
  };
  if (allowed && ticket !== undefined) r.ticket = ticket;
  return r;
}

/** The accepted calls of one key, oldest first (a deque on an array: times[head..] are live). */
class CallLog {
  times: number[] = [];
  head = 0;

  prune(cutoff: number): void {
    const t = this.times;
    while (this.head < t.length && t[this.head] <= cutoff) this.head++;
    if (this.head > 0 && (this.head === t.length || (this.head >= 1024 && this.head * 2 >= t.length))) {
      this.times = t.slice(this.head);
      this.head = 0;
    }
  }

  get count(): number {
    return this.times.length - this.head;
  }
  at(i: number): number {
    return this.times[this.head + i];
  }
  get last(): number {
    return this.times.length ? this.times[this.times.length - 1] : -Infinity;
  }
}

export class MemoryLimiter implements Limiter {
  private logs = new Map<string, CallLog>();
  private sweep: NodeJS.Timeout;
  private maxWindowMs = 0;
  private now: () => number;

  /** `now`: the clock (ms), injectable for tests. */
  constructor(opts: { now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
    this.sweep = setInterval(() => {
      const cutoff = this.now() - this.maxWindowMs;
      for (const [k, l] of this.logs) if (l.last <= cutoff) this.logs.delete(k);
    }, 10_000);
    this.sweep.unref();
  }

  hit(checks: LimitCheck[], windowMs: number): LimitResult {
    if (windowMs > this.maxWindowMs) this.maxWindowMs = windowMs;
    const n = checks.length;
    const logs: CallLog[] = new Array(n);
    // times never go backwards within a log (a wall-clock step back would otherwise reorder it)
    let now = this.now();
    for (let i = 0; i < n; i++) {
      let l = this.logs.get(checks[i].key);
      if (!l) {
        l = new CallLog();
        this.logs.set(checks[i].key, l);
      }
      logs[i] = l;
      if (l.last > now) now = l.last;
    }
    const cutoff = now - windowMs;
    let allowed = true;
    for (let i = 0; i < n; i++) {
      logs[i].prune(cutoff);
      if (logs[i].count >= checks[i].limit) allowed = false;
    }
    if (allowed) for (let i = 0; i < n; i++) logs[i].times.push(now);
    const counts: number[] = new Array(n);
    const resets: number[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const l = logs[i];
      counts[i] = l.count;
      // refused: room again once the calls up to index count - limit have left the window
      resets[i] =
        l.count === 0
          ? windowMs
          : l.at(allowed ? 0 : Math.min(l.count - 1, Math.max(0, l.count - checks[i].limit))) + windowMs - now;
    }
    return decide(checks, counts, resets, allowed, String(now));
  }

  release(keys: string[], ticket: string): void {
    const t = Number(ticket);
    for (const k of keys) {
      const l = this.logs.get(k);
      if (!l) continue;
      const i = l.times.lastIndexOf(t);
      if (i >= l.head) l.times.splice(i, 1);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.logs.clear();
  }
}

// KEYS: the counters (sorted sets: member = one accepted call, score = its time in ms);
// ARGV[1]: window ms; ARGV[2]: the member for this call; ARGV[3..]: limits.
// Returns allowed, then count and reset ms per key. Time is Redis's clock, so engine processes with
// skewed clocks still share one exact budget.
const SCRIPT = `
local window = tonumber(ARGV[1])
local member = ARGV[2]
local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local counts = {}
local allowed = 1
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  counts[i] = redis.call('ZCARD', key)
  if counts[i] >= tonumber(ARGV[i + 2]) then allowed = 0 end
end
local resets = {}
for i, key in ipairs(KEYS) do
  if allowed == 1 then
    redis.call('ZADD', key, now, member)
    redis.call('PEXPIRE', key, window)
    counts[i] = counts[i] + 1
  end
  local idx = 0
  if allowed == 0 then idx = math.max(0, math.min(counts[i] - 1, counts[i] - tonumber(ARGV[i + 2]))) end
  local first = redis.call('ZRANGE', key, idx, idx, 'WITHSCORES')
  if first[2] then resets[i] = tonumber(first[2]) + window - now else resets[i] = window end
end
local out = { allowed }
for i = 1, #KEYS do out[#out + 1] = counts[i]; out[#out + 1] = resets[i] end
return out
`;

/** How often a limiter whose Redis failed a command pings it, so it is seen back without traffic. */
const PROBE_MS = 1000;

export class RedisLimiter implements Limiter {
  private down = false;
  private probe: NodeJS.Timeout | undefined;
  private seq = 0;
  private readonly id = randomBytes(6).toString('base64url');

  private constructor(
    private redis: any,
    private prefix: string,
    private log: Logger,
    private onError: OnStoreError,
  ) {}

  /**
   * Connects to Redis. An unreachable Redis at start is an outage like any other (the engine
   * starts; `onError` decides what requests get) and the client keeps reconnecting.
   */
  static async connect(
    url: string,
    prefix: string,
    log: Logger,
    onError: OnStoreError = 'allow',
  ): Promise<RedisLimiter> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      commandTimeout: 2000,
    });
    redis.defineCommand('gatewayLimit', { lua: SCRIPT });
    redis.on('error', () => {
      /* reported per request, once per outage */
    });
    const limiter = new RedisLimiter(redis, prefix, log, onError);
    await redis.connect().catch((e: Error) => limiter.failed(e));
    return limiter;
  }

  // keys of the sliding logs (sorted sets); `log:` keeps them apart from any other key type
  private k(key: string): string {
    return `${this.prefix}log:${key}`;
  }

  /**
   * Connected, and no command failed since (a Redis that hangs keeps the connection but times
   * out). A replica that readiness takes out of service gets no requests to find Redis back by,
   * so while down a ping every PROBE_MS does.
   */
  available(): boolean {
    return !this.down && this.redis.status === 'ready';
  }

  private back(): void {
    if (!this.down) return;
    this.down = false;
    clearInterval(this.probe);
    this.probe = undefined;
    this.log.info('gateway: rate limit store reachable again; requests are limited');
  }

  private failed(e: Error): void {
    if (this.down) return;
    this.down = true;
    this.probe = setInterval(() => {
      this.redis.ping().then(
        () => this.back(),
        () => {},
      );
    }, PROBE_MS);
    this.probe.unref();
    this.log.warn(
      { err: { message: e.message }, onError: this.onError },
      this.onError === 'deny'
        ? 'gateway: rate limit store unavailable; requests are refused with 503 until it is back (gateway.redis.onError: deny)'
        : 'gateway: rate limit store unavailable; requests are not limited until it is back (gateway.redis.onError: allow)',
    );
  }

  async hit(checks: LimitCheck[], windowMs: number): Promise<LimitResult> {
    const ticket = `${this.id}:${++this.seq}`;
    let r: number[];
    try {
      r = await this.redis.gatewayLimit(
        checks.length,
        ...checks.map((c) => this.k(c.key)),
        windowMs,
        ticket,
        ...checks.map((c) => c.limit),
      );
    } catch (e) {
      this.failed(e as Error);
      const c = checks[0];
      return this.onError === 'deny'
        ? { allowed: false, unavailable: true, limit: c.limit, remaining: 0, resetMs: 1000, key: c.key }
        : { allowed: true, limit: c.limit, remaining: c.limit, resetMs: windowMs, key: c.key };
    }
    this.back();
    const counts: number[] = [];
    const resets: number[] = [];
    for (let i = 0; i < checks.length; i++) {
      counts.push(Number(r[1 + 2 * i]));
      resets.push(Number(r[2 + 2 * i]));
    }
    return decide(checks, counts, resets, r[0] === 1, ticket);
  }

  async release(keys: string[], ticket: string): Promise<void> {
    try {
      await Promise.all(keys.map((k) => this.redis.zrem(this.k(k), ticket)));
    } catch (e) {
      this.failed(e as Error);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.probe);
    this.redis.disconnect();
  }
}
