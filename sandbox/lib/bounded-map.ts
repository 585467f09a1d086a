// A Map that forgets its oldest entries beyond `max`: simulator state (orders, idempotency keys)
// must stay bounded when a benchmark creates tens of thousands of records per second.

export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be an integer >= 1, got ${max}`);
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    // Map iterates in insertion order, so the first key is the oldest.
    while (this.size > this.max) this.delete(this.keys().next().value as K);
    return this;
  }
}
