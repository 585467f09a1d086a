// A bounded least-recently-used map on Map's insertion order: a hit moves the entry to the end,
// an insert over capacity drops the oldest. With `touch: false` a hit moves nothing (a bounded
// first-in-first-out map), which keeps hits to one lookup for caches whose entries expire anyway.

export class Lru<K, V> {
  private map = new Map<K, V>();
  constructor(private capacity: number, private touch = true) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined && this.touch) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return;
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
