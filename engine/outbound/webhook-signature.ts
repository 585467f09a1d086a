// Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>`
// (several space-separated during a secret rotation), with a timestamp tolerance against replays.

import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignatureInput {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  body: Buffer;
}

export type SignatureResult = { ok: true } | { ok: false; reason: string };

/** Secret bytes: `whsec_<base64>` as Standard Webhooks issues them, otherwise the UTF-8 text. */
export function secretBytes(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function sign(secret: string, id: string, timestamp: string | number, body: Buffer | string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

export function verifySignature(
  secrets: string[],
  input: SignatureInput,
  toleranceSec: number,
  nowSec = Math.floor(Date.now() / 1000),
): SignatureResult {
  const { id, timestamp, signature, body } = input;
  if (!id || !timestamp || !signature)
    return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature header' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not a unix time in seconds' };
  if (Math.abs(nowSec - Number(timestamp)) > toleranceSec)
    return { ok: false, reason: `webhook-timestamp is more than ${toleranceSec} s off` };
  const given = signature
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  if (!given.length) return { ok: false, reason: 'no v1 signature' };
  for (const secret of secrets) {
    const expected = Buffer.from(sign(secret, id, timestamp, body).slice(3), 'base64');
    for (const g of given) if (g.length === expected.length && timingSafeEqual(g, expected)) return { ok: true };
  }
  return { ok: false, reason: 'signature does not match' };
}
