// The hub down: the FX route against the hub simulator answering 503 to everything (a fault set
// through its control API), with the shipped circuit breaker (routes/connector.yaml, seed-http:
// 5 failures in a row, one probe every 10 s) and the shipped retry numbers (values
// foreign-exchange-v1: 3 retries, 200 ms doubling). What reached the vendor is read from the
// simulator's own recording, not from the engine: after the threshold nothing does until the
// probe, the refused calls answer at once with 503, Retry-After and GC027, a failed probe opens it
// again, and once the hub is back the next probe closes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';

const PATH = '/foreign-exchange/exchange-rates';
const BODY = { buyCurrency: 'EUR', sellCurrency: 'USD' };
const CLIENT = 'hubvendor-foreign-exchange/hubvendor';

// the shipped numbers, pinned: a change to them must change this test knowingly
const values = parse(readFileSync('values/foreign-exchange-v1.values.yaml', 'utf8'));
const templates = parse(readFileSync('routes/connector.yaml', 'utf8'));
const BREAKER = { failures: 5, ratio: 0.5, 'min-calls': 20, window: 30000, 'half-open-after': 10000 };
const RETRIES = 3;
const DELAYS = [200, 400, 800];

let e: TestEngine;
let hub: string;

/** The forex requests the hub simulator recorded (its control API), oldest first. */
async function vendorRequests(): Promise<{ path: string; time: number }[]> {
  const r = await fetch(`${hub}/__sandbox/requests?pathMatch=${encodeURIComponent('^/v1/forex/')}`);
  return ((await r.json()) as { requests: { path: string; time: number }[] }).requests;
}

async function call(): Promise<{ status: number; ms: number; retryAfter: string | null; body: any }> {
  const t = performance.now();
  const r = await e.request('POST', PATH, BODY);
  return { status: r.status, ms: performance.now() - t, retryAfter: r.headers.get('retry-after'), body: r.body };
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await fetch(`${e.url}/metrics`).then((r) => r.text());
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((p) => l.includes(p)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sequential calls until `until` (Date.now()), each expected refused by the open breaker. */
async function refusedUntil(until: number, seen: { ms: number[] }): Promise<void> {
  while (Date.now() < until) {
    const r = await call();
    expect(r.status).toBe(503);
    expect(r.body.code).toBe('GC027');
    const after = Number(r.retryAfter);
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(10);
    seen.ms.push(r.ms);
    await sleep(50);
  }
}

/** Waits until the breaker's gauge shows `state` (0 closed, 1 open, 2 half-open); the time it did. */
async function stateReached(state: number, withinMs: number): Promise<number> {
  const end = Date.now() + withinMs;
  while (Date.now() < end) {
    if ((await metric('engine_client_breaker_state', `client="${CLIENT}"`)) === state) return Date.now();
    await sleep(25);
  }
  throw new Error(`breaker of ${CLIENT} never reached state ${state}`);
}

beforeAll(async () => {
  e = await startTestEngine({ routes: ['routes/hubvendor-foreign-exchange'] });
  hub = e.sandbox.urls.hubvendor;
});
afterAll(async () => {
  await e?.close();
});

describe('the hub answering 503 to everything', () => {
  it('ships the numbers this test counts with', () => {
    expect(templates.clients['seed-http']['circuit-breaker']).toEqual(BREAKER);
    expect(values.retryFlag).toBe(true);
    expect(values.maximumRedeliveries).toBe(RETRIES);
    expect(values.redeliveryDelay).toBe(DELAYS[0]);
    expect(values.backOffMultiplier).toBe(2);
    expect(String(values.retryStatuses).split(',')).toContain('503');
  });

  it('opens after 5 vendor failures, calls no more until the probe, closes once the hub is back', async () => {
    await fetch(`${hub}/__sandbox/requests`, { method: 'DELETE' });
    const fault = await fetch(`${hub}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: '^/v1/forex/', status: 503, body: { error: 'hub down' } }),
    });
    expect(fault.status).toBe(201);
    const refusedBefore = await metric('engine_client_calls_refused_total', `client="${CLIENT}",by="circuit-breaker"`);

    // call 1: the first attempt and 3 retries, each a failure (4 < 5: still closed)
    const first = await call();
    expect(first.status).toBeGreaterThanOrEqual(500);
    expect(first.ms).toBeGreaterThanOrEqual(DELAYS.reduce((a, b) => a + b) - 20);
    expect(await vendorRequests()).toHaveLength(RETRIES + 1);
    // call 2: its first attempt is the fifth failure in a row and opens the breaker; no retry follows
    // (none is taken from the budget either): the hub's own answer, mapped
    const second = await call();
    expect(second.status).toBe(502);
    expect(second.body.code).toBe('GC027');
    // call 3 on: refused at once, 503 with Retry-After
    const third = await call();
    expect(third.status).toBe(503);
    expect(third.body.code).toBe('GC027');
    expect(third.retryAfter).not.toBeNull();
    const opened = await vendorRequests();
    expect(opened).toHaveLength(BREAKER.failures);
    const openedAt = opened.at(-1)!.time;
    expect(await metric('engine_client_breaker_state', `client="${CLIENT}"`)).toBe(1);

    // open: sequential calls for ~9.5 s, none reaching the hub, each answered at once
    const open1 = { ms: [] as number[] };
    await refusedUntil(openedAt + BREAKER['half-open-after'] - 500, open1);
    expect(await vendorRequests()).toHaveLength(BREAKER.failures);

    // half-open after 10 s; the hub still down: the probe is one vendor request, the breaker opens again
    const half1 = await stateReached(2, 3000);
    expect(half1 - openedAt).toBeGreaterThanOrEqual(BREAKER['half-open-after'] - 50);
    const probe1 = await call();
    // the probe's own failure, mapped (it reached the hub); it opened the breaker, so no retry
    expect(probe1.status).toBe(502);
    expect(probe1.body.code).toBe('GC027');
    const afterProbe1 = await vendorRequests();
    expect(afterProbe1).toHaveLength(BREAKER.failures + 1);
    const reopenedAt = afterProbe1.at(-1)!.time;
    expect(await metric('engine_client_breaker_state', `client="${CLIENT}"`)).toBe(1);

    // the hub comes back; the breaker stays open until its next probe, so the hub still sees nothing
    expect((await fetch(`${hub}/__sandbox/faults`, { method: 'DELETE' })).status).toBe(204);
    const open2 = { ms: [] as number[] };
    await refusedUntil(reopenedAt + BREAKER['half-open-after'] - 500, open2);
    expect(await vendorRequests()).toHaveLength(BREAKER.failures + 1);

    // the probe succeeds: closed, and every call reaches the hub again
    const half2 = await stateReached(2, 3000);
    expect(half2 - reopenedAt).toBeGreaterThanOrEqual(BREAKER['half-open-after'] - 50);
    const probe2 = await call();
    expect(probe2.status).toBe(200);
    expect(await metric('engine_client_breaker_state', `client="${CLIENT}"`)).toBe(0);
    for (let i = 0; i < 5; i++) expect((await call()).status).toBe(200);
    const end = await vendorRequests();
    expect(end).toHaveLength(BREAKER.failures + 1 + 1 + 5);

    const refused = [...open1.ms, ...open2.ms];
    const sorted = [...refused].sort((a, b) => a - b);
    const p50 = sorted[Math.floor(sorted.length / 2)];
    const max = sorted.at(-1)!;
    // a refused call makes no vendor call nor waits a retry delay (the first is 200 ms)
    expect(p50).toBeLessThan(30);
    expect(max).toBeLessThan(DELAYS[0]);
    const byBreaker =
      (await metric('engine_client_calls_refused_total', `client="${CLIENT}",by="circuit-breaker"`)) - refusedBefore;
    // the refused calls of both open periods and call 3: the retries of call 2 and of the failed probe
    // are not made at all (the breaker they opened is said in their error), never refused calls
    expect(byBreaker).toBe(refused.length + 1);
    const transitions = async (to: string) =>
      metric('engine_client_breaker_transitions_total', `client="${CLIENT}",to="${to}"`);
    expect(await transitions('open')).toBe(2);
    expect(await transitions('half-open')).toBe(2);
    expect(await transitions('closed')).toBe(1);

    console.log(
      `vendor outage (shipped values): call 1 made ${RETRIES + 1} vendor requests in ${first.ms.toFixed(0)} ms (answered ${first.status}); ` +
        `call 2 made 1 and opened the breaker (${BREAKER.failures} failures); ` +
        `${open1.ms.length} calls refused in the first open period (vendor requests: 0), ` +
        `failed probe at +${((half1 - openedAt) / 1000).toFixed(2)} s (1 vendor request), ` +
        `${open2.ms.length} calls refused in the second (hub back, vendor requests: 0), ` +
        `probe at +${((half2 - reopenedAt) / 1000).toFixed(2)} s answered 200 and closed it; ` +
        `refused calls p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms; ` +
        `refused by the breaker (metric): ${byBreaker}; vendor requests in all: ${end.length}`,
    );
  }, 60_000);
});
