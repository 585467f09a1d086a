// engine/core/correlation-id.ts: random UUIDs (version 4, RFC 9562 variant) written as one string,
// new on every call across the refills of its random bytes, and what an HTTP request without a
// sane id of its own gets.

import { describe, expect, it } from 'vitest';
import { newCorrelationId } from '../../engine/core/correlation-id.ts';
import { correlationIdFrom } from '../../engine/http/answers.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newCorrelationId', () => {
  it('is a version 4 UUID, different every time, over many refills of its random bytes', () => {
    const seen = new Set<string>();
    const ids: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const id = newCorrelationId();
      expect(id).toMatch(UUID_V4);
      ids.push(id);
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
    // an id handed out earlier is not changed by the ones after it (they share one scratch buffer)
    expect(ids.every((id) => UUID_V4.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(5000);
  });

  it('uses every hex digit in every free position (random, not a counter)', () => {
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (let i = 0; i < 2000; i++) [...newCorrelationId()].forEach((c, k) => digits[k].add(c));
    for (const k of [0, 7, 9, 12, 15, 20, 24, 35]) expect(digits[k].size).toBe(16);
    expect([...digits[14]]).toEqual(['4']);
    expect([...digits[19]].sort()).toEqual(['8', '9', 'a', 'b']);
  });

  it("is what a request without a sane id of its own gets (the caller's is kept)", () => {
    expect(correlationIdFrom('caller-id-1')).toBe('caller-id-1');
    expect(correlationIdFrom(undefined)).toMatch(UUID_V4);
    expect(correlationIdFrom('not sane\n')).toMatch(UUID_V4);
  });
});
