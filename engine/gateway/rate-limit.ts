// Fixed-window rate limits. One request checks several counters at once (the per-user or per-IP
// policy and, for tools/call, the subscription quota): if any is at its limit the request is refused
// and no counter moves, otherwise all move by one. Counters live in memory, or in Redis (one Lua
// script per request, atomic) so several engine processes share one budget.

import type { Logger } from 'pino';

export interface LimitCheck {
  key: string;
  limit: number;
}

export interface LimitResult {
  allowed: boolean;
  /** the counter that decided the headers: the refused one, or the one with the least room */
  limit: number;
  remaining: number;
  /** ms until that counter's window ends */
  resetMs: number;
  key?: string;
}

export interface Limiter {
  hit(checks: LimitCheck[], windowMs: number): LimitResult | Promise<LimitResult>;
  close(): Promise<void>;
}

function decide(checks: LimitCheck[], counts: number[], ttls: number[], allowed: boolean): LimitResult {
  let best = -1;
  let bestRoom = Infinity;
  for (let i = 0; i < checks.length; i++) {
    const room = checks[i].limit - counts[i];
    if (!allowed ? room <= 0 && best < 0 : room < bestRoom) { best = i; bestRoom = room; }
  }
  if (best < 0) best = 0;
  return { allowed, limit: checks[best].limit, remaining: Math.max(0, checks[best].limit - counts[best]), resetMs: Math.max(0, ttls[best]), key: checks[best].key };
}

export class MemoryLimiter implements Limiter {
  private counters = new Map<string, { count: number; resetAt: number }>();
  private sweep: NodeJS.Timeout;

  constructor() {
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const [k, c] of this.counters) if (c.resetAt <= now) this.counters.delete(k);
    }, 10_000);
    this.sweep.unref();
  }

  hit(checks: LimitCheck[], windowMs: number): LimitResult {
    const now = Date.now();
    const entries = checks.map((c) => {
      let e = this.counters.get(c.key);
      if (!e || e.resetAt <= now) {
        e = { count: 0, resetAt: now + windowMs };
        this.counters.set(c.key, e);
      }
      return e;
    });
    let allowed = true;
    for (let i = 0; i < checks.length; i++) if (entries[i].count >= checks[i].limit) allowed = false;
    if (allowed) for (const e of entries) e.count++;
    return decide(checks, entries.map((e) => e.count), entries.map((e) => e.resetAt - now), allowed);
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.counters.clear();
  }
}

// KEYS: the counters; ARGV[1]: window ms; ARGV[2..]: limits. Returns allowed, then count and ttl per key.
const SCRIPT = `
local window = tonumber(ARGV[1])
local counts = {}
local ttls = {}
local allowed = 1
for i, key in ipairs(KEYS) do
  local c = tonumber(redis.call('GET', key) or '0')
  local t = redis.call('PTTL', key)
  if t < 0 then c = 0; t = window end
  counts[i] = c
  ttls[i] = t
  if c >= tonumber(ARGV[i + 1]) then allowed = 0 end
end
if allowed == 1 then
  for i, key in ipairs(KEYS) do
    counts[i] = redis.call('INCR', key)
    if counts[i] == 1 then redis.call('PEXPIRE', key, window); ttls[i] = window end
  end
end
local out = { allowed }
for i = 1, #KEYS do out[#out + 1] = counts[i]; out[#out + 1] = ttls[i] end
return out
`;

export class RedisLimiter implements Limiter {
  private warned = 0;
  private constructor(private redis: any, private prefix: string, private log: Logger) {}

  static async connect(url: string, prefix: string, log: Logger): Promise<RedisLimiter> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
    redis.defineCommand('gatewayLimit', { lua: SCRIPT });
    redis.on('error', () => { /* reported per request */ });
    await redis.connect();
    return new RedisLimiter(redis, prefix, log);
  }

  async hit(checks: LimitCheck[], windowMs: number): Promise<LimitResult> {
    try {
      const r: number[] = await this.redis.gatewayLimit(checks.length, ...checks.map((c) => this.prefix + c.key), windowMs, ...checks.map((c) => c.limit));
      const counts: number[] = [];
      const ttls: number[] = [];
      for (let i = 0; i < checks.length; i++) { counts.push(Number(r[1 + 2 * i])); ttls.push(Number(r[2 + 2 * i])); }
      return decide(checks, counts, ttls, r[0] === 1);
    } catch (e) {
      // the limiter store is down: serve (availability first) and say so, at most every 10 s
      if (Date.now() - this.warned > 10_000) {
        this.warned = Date.now();
        this.log.error({ err: { message: (e as Error).message } }, 'gateway: rate limit store unavailable; requests are not limited');
      }
      return { allowed: true, limit: checks[0].limit, remaining: checks[0].limit, resetMs: windowMs };
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
