// Retry policies from values, on cockatiel. The hub connectors name them `retryFlag`,
// `maximumRedeliveries`, `redeliveryDelay`, `retryStatuses`, `backOffMultiplier`; the batch
// connectors `retryFlag`, `redelivery.maximumRetries`, `redelivery.delay`,
// `redelivery.backOffMultiplier`, `retry.statuses`. Routes map either onto RetrySettings.

import { retry, handleWhen, ExponentialBackoff, type RetryPolicy } from 'cockatiel';
import { PlatformError } from '../core/errors.ts';

export interface RetrySettings {
  enabled: boolean;
  /** retries after the first attempt */
  maxRetries: number;
  /** first delay, ms */
  delay: number;
  multiplier: number;
  /** HTTP statuses that trigger a retry */
  statuses: number[];
  /** upper bound of one delay, ms */
  maxDelay?: number;
}

export function parseStatuses(v: unknown): number[] {
  if (v === undefined || v === null || v === '') return [];
  const list = Array.isArray(v) ? v : String(v).split(',');
  return list.map((s) => Number(String(s).trim())).filter((n) => Number.isInteger(n) && n >= 100 && n <= 599);
}

/**
 * Which failures may be retried. A call that is not idempotent (a POST without an idempotency
 * key) is retried only when the failure proves the vendor never processed it: the connection
 * was refused, or the vendor answered 429. A timeout or a reset after sending may mean the
 * vendor accepted the request, so repeating it could duplicate a payment.
 */
export function isRetryable(err: unknown, s: RetrySettings, idempotent: boolean): boolean {
  if (!(err instanceof PlatformError) || err.noRetry !== undefined || err.refusedBy !== undefined) return false;
  const notSent = err.notSent === true;
  if (err.vendorStatus !== undefined) {
    if (!s.statuses.includes(err.vendorStatus)) return false;
    return idempotent || err.vendorStatus === 429;
  }
  if (err.kind === 'connection' || err.kind === 'timeout' || (err.kind === 'eventhub' && err.transient))
    return idempotent || notSent;
  return false;
}

/**
 * Whether a failed attempt may have been processed by the vendor all the same: a timeout or a
 * connection lost after the request was sent, or a 5xx (a gateway in front of the vendor may
 * lose the answer of a committed call). A refused connection or a 429 proves it was not.
 * A later "already in that state" answer of a retry then means the first attempt did the work.
 */
export function mayHaveBeenProcessed(err: unknown): boolean {
  if (!(err instanceof PlatformError)) return false;
  if (err.vendorStatus !== undefined) return err.vendorStatus >= 500;
  return (err.kind === 'timeout' || err.kind === 'connection') && err.notSent !== true;
}

/** A cockatiel policy, or undefined when retries are off. */
export function retryPolicy(s: RetrySettings, idempotent: boolean): RetryPolicy | undefined {
  if (!s.enabled || s.maxRetries <= 0) return undefined;
  return retry(
    handleWhen((e) => isRetryable(e, s, idempotent)),
    {
      maxAttempts: s.maxRetries,
      backoff: new ExponentialBackoff({
        initialDelay: s.delay,
        exponent: s.multiplier > 0 ? s.multiplier : 1,
        maxDelay: s.maxDelay ?? 30_000,
        generator: noJitter,
      }),
    },
  );
}

/**
 * Exponential backoff without jitter: delay(n) = initialDelay * exponent^(n-1), capped at
 * maxDelay, so that `redeliveryDelay` and `backOffMultiplier` mean exactly what they say.
 */
const backoff = (initialDelay: number, exponent: number, maxDelay: number, attempt: number): number =>
  Math.min(maxDelay, initialDelay * Math.pow(exponent, attempt - 1));

/** The pause before retry `attempt` (1 = the first retry), as the policy waits it. */
export function retryDelay(s: RetrySettings, attempt: number): number {
  return backoff(s.delay, s.multiplier > 0 ? s.multiplier : 1, s.maxDelay ?? 30_000, attempt);
}

/** cockatiel's generator of that backoff: its state is the attempt number */
const noJitter = (
  state: number | undefined,
  opts: { initialDelay: number; maxDelay: number; exponent: number },
): [number, number] => {
  const attempt = (state ?? 0) + 1;
  return [backoff(opts.initialDelay, opts.exponent, opts.maxDelay, attempt), attempt];
};
