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
