import { describe, it, expect } from 'vitest';
import { retryPolicy, isRetryable, parseStatuses, type RetrySettings } from '../../engine/outbound/retry.ts';
import { PlatformError } from '../../engine/core/errors.ts';

const settings = (o: Partial<RetrySettings> = {}): RetrySettings => ({
  enabled: true,
  maxRetries: 3,
  delay: 20,
  multiplier: 2,
  statuses: [429, 503],
  ...o,
});
const vendor = (status: number) => new PlatformError({ kind: 'vendor', vendorStatus: status });

async function attempts(
  s: RetrySettings,
  idempotent: boolean,
  fail: (n: number) => unknown,
): Promise<{ n: number; times: number[] }> {
  const policy = retryPolicy(s, idempotent);
  const times: number[] = [];
  let n = 0;
  const run = async () => {
    times.push(Date.now());
    n++;
    const e = fail(n);
    if (e) throw e;
    return 'ok';
  };
  try {
    await (policy ? policy.execute(run) : run());
  } catch {
    /* counted */
  }
  return { n, times };
}

describe('retry policy from values', () => {
  it('retries a listed status exactly maxRetries times', async () => {
    expect((await attempts(settings(), true, () => vendor(503))).n).toBe(4);
    expect((await attempts(settings({ maxRetries: 1 }), true, () => vendor(503))).n).toBe(2);
  });

  it('backs off exponentially: delay, delay*multiplier, ...', async () => {
    const { times } = await attempts(settings({ delay: 40, multiplier: 2, maxRetries: 3 }), true, () => vendor(503));
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(38);
    expect(gaps[1]).toBeGreaterThanOrEqual(78);
    expect(gaps[2]).toBeGreaterThanOrEqual(158);
    expect(gaps[2]).toBeLessThan(400);
  });

  it('does not retry statuses that are not listed, nor when retries are off', async () => {
    expect((await attempts(settings(), true, () => vendor(500))).n).toBe(1);
    expect((await attempts(settings({ enabled: false }), true, () => vendor(503))).n).toBe(1);
    expect((await attempts(settings({ maxRetries: 0 }), true, () => vendor(503))).n).toBe(1);
  });

  it('stops retrying once an attempt succeeds', async () => {
    expect((await attempts(settings(), true, (n) => (n < 3 ? vendor(503) : undefined))).n).toBe(3);
  });

  it('retries connection failures of idempotent calls', async () => {
    expect((await attempts(settings(), true, () => new PlatformError({ kind: 'connection' }))).n).toBe(4);
    expect((await attempts(settings(), true, () => new PlatformError({ kind: 'timeout' }))).n).toBe(4);
  });

  it('a non-idempotent call is retried only when the vendor surely did not process it', () => {
    const s = settings();
    const refused = Object.assign(new PlatformError({ kind: 'connection' }), { notSent: true });
    const reset = new PlatformError({ kind: 'connection' });
    expect(isRetryable(refused, s, false)).toBe(true);
    expect(isRetryable(reset, s, false)).toBe(false);
    expect(isRetryable(new PlatformError({ kind: 'timeout' }), s, false)).toBe(false);
    expect(isRetryable(vendor(503), s, false)).toBe(false);
    expect(isRetryable(vendor(429), s, false)).toBe(true);
    expect(isRetryable(vendor(503), s, true)).toBe(true);
    expect(isRetryable(new PlatformError({ kind: 'validation' }), s, true)).toBe(false);
  });

  it('parses retryStatuses in the form 429,502,503', () => {
    expect(parseStatuses('429, 502,503')).toEqual([429, 502, 503]);
    expect(parseStatuses([500, '504'])).toEqual([500, 504]);
    expect(parseStatuses('')).toEqual([]);
    expect(parseStatuses('abc,99,600')).toEqual([]);
  });
});
