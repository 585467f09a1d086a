// The client guard's parts on their own: the breaker's transitions (consecutive failures, a
// failure ratio, the half-open probe), the bulkhead's places and queue, the retry budget's share,
// and the guard's refusals (503, Retry-After, no call). Timers are faked; nothing waits.
import { describe, it, expect, vi, beforeEach, afterEach } from 'vitest';
import pino from 'pino';
import { CircuitBreaker, ADMIT, PROBE, REFUSED } from '../../engine/outbound/circuit-breaker.ts';
import { Bulkhead } from '../../engine/outbound/bulkhead.ts';
import { RetryBudget, DEFAULT_BUDGET } from '../../engine/outbound/retry-budget.ts';
import { ClientGuards } from '../../engine/outbound/client-guard.ts';
import { Metrics } from '../../engine/observability/metrics.ts';
import { PlatformError } from '../../engine/core/errors.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const breakerSettings = { failures: 3, window: 10_000, minCalls: 10, halfOpenAfter: 5000 };

describe('circuit breaker', () => {
  it('opens after the consecutive failures, refuses, half-opens after the delay with one probe, closes on its success', () => {
    const moves: string[] = [];
    const b = new CircuitBreaker(breakerSettings, (to, from) => moves.push(`${from}->${to}`));
    expect(b.enter()).toBe(ADMIT);
    b.failure(false, 'x');
    b.failure(false, 'x');
    b.success(false); // a success in between starts the count again
    b.failure(false, 'x');
    b.failure(false, 'x');
    expect(b.state).toBe('closed');
    b.failure(false, 'vendor answered 503');
    expect(b.state).toBe('open');
    expect(b.lastCause).toBe('vendor answered 503');
    expect(b.enter()).toBe(REFUSED);
    expect(b.retryAfterMs()).toBe(5000);
    vi.advanceTimersByTime(4999);
    expect(b.enter()).toBe(REFUSED);
    vi.advanceTimersByTime(1);
    expect(b.state).toBe('half-open');
    expect(b.enter()).toBe(PROBE);
    expect(b.enter()).toBe(REFUSED); // one probe at a time
    b.success(true);
    expect(b.state).toBe('closed');
    expect(b.enter()).toBe(ADMIT);
    expect(moves).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
  });

  it('a failed probe opens it again for another delay; an abandoned probe lets another call probe', () => {
    const b = new CircuitBreaker(breakerSettings, () => {});
    for (let i = 0; i < 3; i++) b.failure(false, 'x');
    vi.advanceTimersByTime(5000);
    expect(b.enter()).toBe(PROBE);
    b.abandon(true);
    expect(b.enter()).toBe(PROBE);
    b.failure(true, 'still down');
    expect(b.state).toBe('open');
    expect(b.enter()).toBe(REFUSED);
    vi.advanceTimersByTime(5000);
    expect(b.state).toBe('half-open');
  });

  it('opens on the failure ratio over the window once it has min-calls, not before', () => {
    const b = new CircuitBreaker({ ...breakerSettings, failures: 100, ratio: 0.5 }, () => {});
    // alternate: never 3 in a row, half of the calls failing
    for (let i = 0; i < 4; i++) {
      b.success(false);
      b.failure(false, 'x');
    }
    expect(b.state).toBe('closed'); // 8 calls < min-calls 10
    b.success(false);
    b.failure(false, 'x'); // 10 calls, 5 failures
    expect(b.state).toBe('open');
  });

  it('forgets failures that left the window', () => {
    const b = new CircuitBreaker({ ...breakerSettings, failures: 100, ratio: 0.5, minCalls: 4 }, () => {});
    b.failure(false, 'x');
    b.failure(false, 'x');
    b.failure(false, 'x');
    vi.advanceTimersByTime(11_000);
    b.success(false);
    b.success(false);
    b.success(false);
    b.failure(false, 'x'); // 1 of 4 in the window
    expect(b.state).toBe('closed');
  });
});

describe('bulkhead', () => {
  it('admits max-concurrent at once, queues max-queue, refuses beyond; a place goes to the longest waiting', async () => {
    const h = new Bulkhead({ maxConcurrent: 2, maxQueue: 1, queueTimeout: 1000 });
    expect(h.enter()).toBe(true);
    expect(h.enter()).toBe(true);
    const waiting = h.enter();
    expect(waiting).toBeInstanceOf(Promise);
    expect(h.enter()).toBe(false);
    expect(h.queued).toBe(1);
    h.leave();
    await expect(waiting).resolves.toBe(true);
    expect(h.active).toBe(2);
    h.leave();
    h.leave();
    expect(h.active).toBe(0);
  });

  it('a queued call waits at most queue-timeout', async () => {
    const h = new Bulkhead({ maxConcurrent: 1, maxQueue: 5, queueTimeout: 300 });
    h.enter();
    const waiting = h.enter() as Promise<boolean>;
    vi.advanceTimersByTime(300);
    await expect(waiting).resolves.toBe(false);
    expect(h.queued).toBe(0);
  });
});

describe('retry budget', () => {
  it('allows min-per-second over the window plus ratio of the calls', () => {
    const b = new RetryBudget({ ratio: 0.2, window: 10_000, minPerSecond: 1 });
    // floor: 1/s over 10 s = 10 retries with no calls
    let allowed = 0;
    while (b.retry() && allowed < 1000) allowed++;
    expect(allowed).toBe(10);
    for (let i = 0; i < 100; i++) b.call();
    allowed = 0;
    while (b.retry() && allowed < 1000) allowed++;
    expect(allowed).toBe(20); // 10 + 0.2 x 100 = 30 in all
    expect(b.view()).toMatchObject({ calls: 100, retries: 30 });
    expect(b.refused).toBe(2);
    vi.advanceTimersByTime(10_001);
    expect(b.retry()).toBe(true); // the window moved on
  });

  it('the default is documented: 20% of calls over 10 s plus 10 per second', () => {
    expect(DEFAULT_BUDGET).toEqual({ ratio: 0.2, window: 10_000, minPerSecond: 10 });
  });
});

describe('client guards', () => {
  const make = () => {
    const metrics = new Metrics(false);
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s)) });
    const guards = new ClientGuards();
    guards.attach(metrics, log);
    return { metrics, lines, guards };
  };
  const settings = {
    breaker: breakerSettings,
    bulkhead: { maxConcurrent: 1, maxQueue: 0, queueTimeout: 100 },
    budget: DEFAULT_BUDGET,
    statuses: [429],
  };

  it('refuses with a 503 connection error carrying Retry-After, counts refusals, logs each transition once', async () => {
    const { metrics, lines, guards } = make();
    const g = guards.use('fx-rates', 'routes/fx/connector.yaml#hub', 'fx/hub', 'routes/fx/connector.yaml', settings)!;
    const seen: string[] = [];
    guards.onChange((_, to) => seen.push(to));
    for (let i = 0; i < 3; i++) {
      const t = g.enter() as number;
      g.leave(t, false, 'hub answered 503');
    }
    expect(g.open).toBe(true);
    let refusal: PlatformError | undefined;
    for (let i = 0; i < 50; i++) {
      try {
        g.enter();
      } catch (e) {
        refusal = e as PlatformError;
      }
    }
    expect(refusal).toBeInstanceOf(PlatformError);
    expect(refusal).toMatchObject({ kind: 'connection', status: 503, refusedBy: 'circuit-breaker', notSent: true });
    expect(refusal!.headers).toEqual({ 'Retry-After': '5' });
    expect(refusal!.detail).toMatch(/circuit breaker of client 'fx\/hub' is open since .*hub answered 503/);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/engine_client_calls_refused_total\{client="fx\/hub",by="circuit-breaker"\} 50/);
    expect(text).toMatch(/engine_client_breaker_state\{client="fx\/hub"\} 1/);
    expect(text).toMatch(/engine_client_breaker_transitions_total\{client="fx\/hub",to="open"\} 1/);
    expect(lines.filter((l) => /circuit breaker/.test(l.msg))).toHaveLength(1);
    vi.advanceTimersByTime(5000);
    const probe = g.enter() as number;
    g.leave(probe, true);
    expect(seen).toEqual(['open', 'half-open', 'closed']);
    expect(lines.filter((l) => /circuit breaker/.test(l.msg))).toHaveLength(3);
    expect(guards.list()[0]).toMatchObject({ client: 'fx/hub', routes: ['fx-rates'], breaker: { state: 'closed' } });
    guards.close();
  });

  it('a full bulkhead refuses at once; 4xx answers never count against the breaker', () => {
    const { guards } = make();
    const g = guards.use('r', 'k', 'x/k', 'f', settings)!;
    const t = g.enter() as number;
    expect(() => g.enter()).toThrow(expect.objectContaining({ refusedBy: 'bulkhead', status: 503 }));
    g.leave(t, true);
    expect(g.failureStatus(400)).toBe(false);
    expect(g.failureStatus(404)).toBe(false);
    expect(g.failureStatus(429)).toBe(true); // a retry status of the client
    expect(g.failureStatus(503)).toBe(true);
    guards.close();
  });

  it('keeps the same guard (and its state) while the settings stay the same, a new one when they change', () => {
    const { guards } = make();
    const a = guards.use('r1', 'k', 'x/k', 'f', settings)!;
    expect(guards.use('r2', 'k', 'x/k', 'f', { ...settings })).toBe(a);
    const b = guards.use('r1', 'k', 'x/k', 'f', { ...settings, breaker: { ...breakerSettings, failures: 9 } });
    expect(b).not.toBe(a);
    expect(guards.ofRoute('r2')).toEqual([b]);
    guards.close();
  });

  it('an unattached registry (a bare HttpClients) guards nothing', () => {
    expect(new ClientGuards().use('r', 'k', 'x/k', 'f', settings)).toBeUndefined();
  });
});
