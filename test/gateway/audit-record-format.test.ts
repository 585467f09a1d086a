// The audit record's text as its hash is taken over is a contract with every chain already written:
// the hash of a fixed record is pinned (taken with the format as first written), so a faster way to
// build the record cannot change it; the record's time equals Date#toISOString's.

import { describe, expect, it } from 'vitest';
import { argsDigest, pending, recordHash } from '../../engine/gateway/audit-chain.ts';
import { isoAt } from '../../engine/gateway/iso-now.ts';

describe('audit record format', () => {
  it('hashes a record as the chains already written do', () => {
    const rec = pending({
      kind: 'call',
      at: '2026-11-28T02:38:12.091Z',
      tool: 'getExchangeRate',
      subscription: 'demo-agent',
      keyId: 'e1d933c7edc0',
      user: 'bench-user',
      issuer: 'https://idp.sandbox.invalid',
      argsDigest: 'sha256:4f0b',
      outcome: 'ok',
      correlationId: 'c86ce1a8-6c7a-45f3-bf94-3699144b2cda',
      clientIp: '127.0.0.1',
      // cut to 512 characters; escapes as JSON.stringify writes them
      detail: 'x'.repeat(600) + '"\u2028é',
    });
    expect(rec.detail).toHaveLength(512);
    expect(rec.code).toBeUndefined();
    expect(recordHash(7, rec, 'ab'.repeat(32))).toBe(
      'aad36fa35b91a2d49c77d62c5eb37ef0b4cb74b8575568ef9b38f583140ee89d',
    );
    // an empty field is absent, as one never given
    expect(recordHash(7, { ...rec, jti: '' as never }, 'ab'.repeat(32))).not.toBe(recordHash(7, rec, 'ab'.repeat(32)));
    expect(recordHash(7, pending({ ...rec, jti: '' }), 'ab'.repeat(32))).toBe(recordHash(7, rec, 'ab'.repeat(32)));
  });

  it('digests arguments by their canonical JSON, whatever the key order', () => {
    const a = { b: 1, a: [1, { z: undefined, y: 'q' }], c: undefined, d: null, e: { é: 2 } };
    const b = { e: { é: 2 }, d: null, a: [1, { y: 'q' }], b: 1 };
    expect(argsDigest(a)).toBe(argsDigest(b));
    expect(argsDigest(a)).toBe('sha256:9fb701678318776f14a69d60ee0fe6636ad8247e2354a5aab4230652bac5fe7f');
  });

  it('writes the time as Date#toISOString, across seconds and back in time', () => {
    const base = Date.UTC(2026, 10, 28, 23, 59, 59, 990);
    const times = [
      0,
      1,
      9,
      10,
      99,
      100,
      999,
      1000,
      1001,
      base,
      base + 9,
      base + 10,
      base + 11,
      base - 5000,
      253402300799999,
    ];
    for (let i = 0; i < 2000; i++) times.push(Math.floor(Math.random() * 4e12));
    for (const t of times) expect(isoAt(t)).toBe(new Date(t).toISOString());
  });
});
