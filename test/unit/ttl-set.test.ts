// TtlSet (webhook dedupe): entries expire after the TTL, the set never holds more than `max`,
// and the oldest entries are the ones dropped.

import { describe, it, expect } from 'vitest';
import { TtlSet } from '../../engine/store/ttl-set.ts';

describe('TtlSet', () => {
  it('holds a key until its TTL is over', () => {
    const s = new TtlSet(1000, 10);
    s.add('a', 0);
    expect(s.has('a', 0)).toBe(true);
    expect(s.has('a', 999)).toBe(true);
    expect(s.has('a', 1000)).toBe(false);
    expect(s.size).toBe(0);
    expect(s.has('b', 0)).toBe(false);
  });

  it('adding again restarts the TTL', () => {
    const s = new TtlSet(1000, 10);
    s.add('a', 0);
    s.add('a', 800);
    expect(s.has('a', 1500)).toBe(true);
    expect(s.has('a', 1800)).toBe(false);
  });

  it('drops the oldest beyond max, and expired entries when adding', () => {
    const s = new TtlSet(1000, 2);
    s.add('a', 0);
    s.add('b', 1);
    s.add('c', 2);
    expect(s.size).toBe(2);
    expect([s.has('a', 3), s.has('b', 3), s.has('c', 3)]).toEqual([false, true, true]);
    // a re-added key is the newest, so the other one goes first
    s.add('b', 4);
    s.add('d', 5);
    expect([s.has('b', 6), s.has('c', 6), s.has('d', 6)]).toEqual([true, false, true]);
    // at t=2000 b and d are expired; adding e removes them without a lookup
    s.add('e', 2000);
    expect(s.size).toBe(1);
  });
});
