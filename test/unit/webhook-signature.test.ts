// Standard Webhooks signatures against the specification's published reference vector (the
// standard-webhooks libraries' "sign function works" test), then verification rules.

import { describe, it, expect } from 'vitest';
import { sign, verifySignature, secretBytes } from '../../engine/outbound/webhook-signature.ts';

// reference vector of the Standard Webhooks libraries
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TIMESTAMP = 1614265330;
const PAYLOAD = '{"test": 2432232314}';
const EXPECTED = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

const input = (signature: string, body = PAYLOAD, timestamp = String(TIMESTAMP)) => ({
  id: ID,
  timestamp,
  signature,
  body: Buffer.from(body),
});

describe('Standard Webhooks signatures', () => {
  it('signs the reference vector as the specification does', () => {
    expect(sign(SECRET, ID, TIMESTAMP, PAYLOAD)).toBe(EXPECTED);
    expect(sign(SECRET, ID, String(TIMESTAMP), Buffer.from(PAYLOAD))).toBe(EXPECTED);
    // whsec_ secrets are base64 key bytes, not text
    expect(secretBytes(SECRET)).toEqual(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'));
  });

  it('verifies the reference vector, also among other signatures during a rotation', () => {
    expect(verifySignature([SECRET], input(EXPECTED), 300, TIMESTAMP)).toEqual({ ok: true });
    const several = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,abc ${EXPECTED}`;
    expect(verifySignature(['whsec_b2xkLXNlY3JldA==', SECRET], input(several), 300, TIMESTAMP)).toEqual({ ok: true });
  });

  it('refuses a changed body, another secret, a partial signature and a stale timestamp', () => {
    expect(verifySignature([SECRET], input(EXPECTED, '{"test": 2432232315}'), 300, TIMESTAMP)).toMatchObject({
      ok: false,
      reason: 'signature does not match',
    });
    expect(verifySignature(['whsec_b2xkLXNlY3JldA=='], input(EXPECTED), 300, TIMESTAMP)).toMatchObject({ ok: false });
    expect(verifySignature([SECRET], input(EXPECTED.slice(0, 8)), 300, TIMESTAMP)).toMatchObject({ ok: false });
    expect(verifySignature([SECRET], input('v1,'), 300, TIMESTAMP)).toMatchObject({ ok: false });
    expect(verifySignature([SECRET], input(EXPECTED), 300, TIMESTAMP + 301)).toMatchObject({
      ok: false,
      reason: 'webhook-timestamp is more than 300 s off',
    });
    expect(verifySignature([SECRET], input(EXPECTED), 300, TIMESTAMP - 301)).toMatchObject({ ok: false });
    expect(verifySignature([SECRET], input(EXPECTED, PAYLOAD, 'hello'), 300, TIMESTAMP)).toMatchObject({
      ok: false,
      reason: 'webhook-timestamp is not a unix time in seconds',
    });
    expect(verifySignature([SECRET], { ...input(EXPECTED), id: undefined }, 300, TIMESTAMP)).toMatchObject({
      ok: false,
    });
  });
});
