// BoundedCache (verified tokens): never more than `capacity` entries, first in first out,
// capacity 0 caches nothing.

import { describe, it, expect } from 'vitest';
import { BoundedCache } from '../../engine/gateway/bounded-cache.ts';

describe('BoundedCache', () => {
  it('keeps at most capacity entries, dropping the first inserted', () => {
    const c = new BoundedCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    expect(c.size).toBe(2);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('setting a key again replaces it and makes it the newest', () => {
    const c = new BoundedCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('a', 10);
    c.set('c', 3);
    expect(c.size).toBe(2);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([10, undefined, 3]);
  });

  it('a hit does not change the order (FIFO, not LRU)', () => {
    const c = new BoundedCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1);
    c.set('c', 3);
    expect(c.get('a')).toBeUndefined();
  });

  it('delete and clear; capacity 0 caches nothing', () => {
    const c = new BoundedCache<string, number>(3);
    c.set('a', 1);
    c.set('b', 2);
    c.delete('a');
    expect([c.get('a'), c.size]).toEqual([undefined, 1]);
    c.clear();
    expect(c.size).toBe(0);
    const none = new BoundedCache<string, number>(0);
    none.set('a', 1);
    expect([none.get('a'), none.size]).toEqual([undefined, 0]);
  });
});
