// The gateway limit's rate limits, written by hand: the gateway's semantics (an exact sliding
// window: at most `limit` accepted calls in any window-long span; a request checks several counters
// and moves all or none) with the least work: per key a ring of call times in a plain array.
interface Log {
  times: number[];
  head: number;
}

export interface Counted {
  allowed: boolean;
  /** the counter with the least room (the RateLimit-* headers) */
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export class SlidingLimits {
  private logs = new Map<string, Log>();
  constructor(private windowMs: number) {}

  private log(key: string, cutoff: number): Log {
    let l = this.logs.get(key);
    if (!l) this.logs.set(key, (l = { times: [], head: 0 }));
    const t = l.times;
    while (l.head < t.length && t[l.head] <= cutoff) l.head++;
    if (l.head >= 1024 && l.head * 2 >= t.length) {
      l.times = t.slice(l.head);
      l.head = 0;
    }
    return l;
  }

  /** Two counters at once (the caller's policy and the subscription's quota). */
  hit2(k1: string, limit1: number, k2: string, limit2: number): Counted {
    const now = Date.now();
    const cutoff = now - this.windowMs;
    const a = this.log(k1, cutoff);
    const b = this.log(k2, cutoff);
    const ca = a.times.length - a.head;
    const cb = b.times.length - b.head;
    const allowed = ca < limit1 && cb < limit2;
    if (allowed) {
      a.times.push(now);
      b.times.push(now);
    }
    const [l, limit, count] = limit1 - ca <= limit2 - cb ? [a, limit1, ca] : [b, limit2, cb];
    const n = count + (allowed ? 1 : 0);
    const oldest = n ? l.times[l.head] : now;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - n),
      resetSeconds: Math.max(0, Math.ceil((oldest + this.windowMs - now) / 1000)),
    };
  }

  /** One counter (the client IP's budget, paid before a token is first verified). */
  hit1(key: string, limit: number): boolean {
    const now = Date.now();
    const l = this.log(key, now - this.windowMs);
    if (l.times.length - l.head >= limit) return false;
    l.times.push(now);
    return true;
  }
}
