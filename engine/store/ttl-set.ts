// A bounded set whose entries expire: insertion order is expiry order, so the oldest go first.

export class TtlSet {
  private entries = new Map<string, number>();
  constructor(
    private ttlMs: number,
    private max: number,
  ) {}

  has(key: string, now = Date.now()): boolean {
    const exp = this.entries.get(key);
    if (exp === undefined) return false;
    if (exp <= now) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  add(key: string, now = Date.now()): void {
    this.entries.delete(key);
    this.entries.set(key, now + this.ttlMs);
    for (const [k, exp] of this.entries) {
      if (this.entries.size <= this.max && exp > now) break;
      this.entries.delete(k);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/** A bounded map whose entries expire: the oldest inserted go first when it is full. */
export class TtlMap {
  private entries = new Map<string, { v: string; exp: number }>();
  constructor(
    private ttlMs: number,
    private max: number,
  ) {}

  get(key: string, now = Date.now()): string | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.exp <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e.v;
  }

  set(key: string, v: string, ttlMs = this.ttlMs, now = Date.now()): void {
    this.entries.delete(key);
    this.entries.set(key, { v, exp: now + ttlMs });
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.max && e.exp > now) break;
      this.entries.delete(k);
    }
  }

  take(key: string, now = Date.now()): string | undefined {
    const v = this.get(key, now);
    this.entries.delete(key);
    return v;
  }
}
