// The FX route end to end over real sockets: engine -> hubvendor simulator.
import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';

const PATH = '/foreign-exchange/exchange-rates';
let e: TestEngine;
const forexCalls = () => e.sandbox.hubvendor.server.requests().filter((r) => r.path.startsWith('/v1/forex/'));

beforeAll(async () => {
  e = await startTestEngine({
    routes: ['routes/hubvendor-foreign-exchange'],
    // fast retries for the tests; the counts stay those of the values file
    set: { 'foreign-exchange-v1:redeliveryDelay': '5', 'foreign-exchange-v1:backOffMultiplier': '2' },
  });
});
afterAll(async () => {
  await e?.close();
});
beforeEach(() => {
  e.sandbox.hubvendor.server.clearFaults();
  e.sandbox.hubvendor.server.clearRequests();
  // a vendor healthy again for the next case: its breaker closed too (a breaker stays open for its delay)
  e.services.http.guards.reset();
});

describe('POST /foreign-exchange/exchange-rates', () => {
  it('answers a rate, filling the defaults for amount, type and currency market', async () => {
    const r = await e.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'SPOT' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      buyCurrency: 'EUR',
      sellCurrency: 'USD',
      currencyMarket: '1',
      transactionAmount: '1',
      transactionAmountType: 'BUY',
    });
    expect(typeof r.body.middleRate).toBe('number');
    expect(r.body.middleRate).toBeGreaterThan(0);
    const calls = forexCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('GET');
    expect(calls[0].path).toBe('/v1/forex/exchange-rates/EUR/USD/1/BUY');
    expect(calls[0].query).toEqual({ currencyMarket: '1' });
    // rateType is validated but never forwarded
    expect(JSON.stringify(calls[0])).not.toContain('SPOT');
  });

  it('uses the amount and type of the request when given', async () => {
    const r = await e.request('POST', PATH, {
      buyCurrency: 'GBP',
      sellCurrency: 'JPY',
      transactionAmount: '2500',
      transactionAmountType: 'SELL',
    });
    expect(r.status).toBe(200);
    expect(r.body.transactionAmount).toBe('2500');
    expect(forexCalls()[0].path).toBe('/v1/forex/exchange-rates/GBP/JPY/2500/SELL');
  });

  it('echoes the caller correlation id and forwards Authorization unchanged', async () => {
    const auth = 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln';
    const r = await e.request(
      'POST',
      PATH,
      { buyCurrency: 'EUR', sellCurrency: 'CHF' },
      { 'x-correlation-id': 'corr-123', authorization: auth },
    );
    expect(r.headers.get('x-correlation-id')).toBe('corr-123');
    expect(forexCalls()[0].headers.authorization).toBe(auth);
    expect(forexCalls()[0].headers['x-correlation-id']).toBe('corr-123');
  });

  const invalid: [string, unknown, string][] = [
    ['missing buyCurrency', { sellCurrency: 'USD' }, '/buyCurrency'],
    ['unknown currency', { buyCurrency: 'EUR', sellCurrency: 'XYZ' }, '/sellCurrency'],
    ['lower-case currency', { buyCurrency: 'eur', sellCurrency: 'USD' }, '/buyCurrency'],
    [
      'a second pair',
      { buyCurrency: 'EUR', sellCurrency: 'USD', pairs: [{ buyCurrency: 'GBP', sellCurrency: 'USD' }] },
      '/pairs',
    ],
    ['currencies as an array', { buyCurrency: ['EUR', 'GBP'], sellCurrency: 'USD' }, '/buyCurrency'],
    ['an array of pairs', [{ buyCurrency: 'EUR', sellCurrency: 'USD' }], '/'],
    ['bad rateType', { buyCurrency: 'EUR', sellCurrency: 'USD', rateType: 'BEST' }, '/rateType'],
    ['negative amount', { buyCurrency: 'EUR', sellCurrency: 'USD', transactionAmount: '-5' }, '/transactionAmount'],
    ['amount as a number', { buyCurrency: 'EUR', sellCurrency: 'USD', transactionAmount: 5 }, '/transactionAmount'],
    [
      'bad amount type',
      { buyCurrency: 'EUR', sellCurrency: 'USD', transactionAmountType: 'MID' },
      '/transactionAmountType',
    ],
    [
      'more decimals than the currency of the amount allows',
      { buyCurrency: 'GBP', sellCurrency: 'JPY', transactionAmount: '10.5', transactionAmountType: 'SELL' },
      '/transactionAmount',
    ],
    ['path injection', { buyCurrency: '../x', sellCurrency: 'USD' }, '/buyCurrency'],
  ];
  for (const [name, body, field] of invalid) {
    it(`400 naming the field for ${name}, without a vendor call`, async () => {
      const r = await e.request('POST', PATH, body);
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body.code).toBe('GC025');
      expect(r.body.errors.map((x: { field: string }) => x.field)).toContain(field);
      expect(r.body.correlationId).toBeTruthy();
      expect(forexCalls()).toHaveLength(0);
    });
  }

  it('415 for a non-JSON content type, 400 for malformed JSON, 413 for a body over the limit', async () => {
    const text = await e.request('POST', PATH, 'buyCurrency=EUR', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const bad = await e.request('POST', PATH, '{"buyCurrency": ', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('not valid JSON');
    const big = await e.request('POST', PATH, {
      buyCurrency: 'EUR',
      sellCurrency: 'USD',
      rateType: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(big.status).toBe(413);
    expect(forexCalls()).toHaveLength(0);
  });

  it('maps a vendor 404 (hubvendor error envelope) to GC054', async () => {
    e.sandbox.hubvendor.server.addFault({
      path: '^/v1/forex/',
      status: 404,
      body: {
        header: { status: 'failed' },
        error: {
          type: 'BUSINESS',
          errorDetails: [{ fieldName: 'sellCurrency', code: 'HUB-FX-404', message: 'No rate for EUR/ZAR' }],
        },
      },
    });
    const r = await e.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'ZAR' });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'GC054', title: 'Not found', detail: 'No rate for EUR/ZAR' });
  });

  it('maps a vendor 400 to GC025 with the vendor field errors', async () => {
    e.sandbox.hubvendor.server.addFault({
      path: '^/v1/forex/',
      status: 400,
      body: {
        header: { status: 'failed' },
        error: {
          type: 'BUSINESS',
          errorDetails: [{ fieldName: 'transactionAmount', code: 'HUB-FX-400', message: 'amount too large' }],
        },
      },
    });
    const r = await e.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('GC025');
    expect(r.body.detail).toBe('transactionAmount: amount too large');
    expect(r.body.vendorErrors).toEqual([
      { field: 'transactionAmount', code: 'HUB-FX-400', message: 'amount too large' },
    ]);
  });

  it('retries a 503 exactly maximumRedeliveries times, then answers GC027', async () => {
    e.sandbox.hubvendor.server.addFault({
      path: '^/v1/forex/',
      status: 503,
      body: { error: { type: 'TECHNICAL', errorDetails: [] } },
    });
    const r = await e.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBe(502);
    expect(r.body.code).toBe('GC027');
    expect(forexCalls()).toHaveLength(1 + 3); // first attempt + maximumRedeliveries (3)
  });

  it('recovers when the vendor comes back within the retries', async () => {
    e.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', status: 503, times: 2 });
    const r = await e.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBe(200);
    expect(forexCalls()).toHaveLength(3);
  });

  it('does not retry a status outside retryStatuses', async () => {
    e.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', status: 500 });
    const r = await e.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBe(502);
    expect(forexCalls()).toHaveLength(1);
  });

  it('retries a connection reset (GET is idempotent) and maps it when it persists', async () => {
    e.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', reset: true });
    const r = await e.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBe(502);
    expect(r.body.code).toBe('GC027');
    expect(r.body.detail).toContain('could not be reached');
    expect(forexCalls()).toHaveLength(4);
  });
});

describe('timeouts', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine({
      routes: ['routes/hubvendor-foreign-exchange'],
      set: {
        'foreign-exchange-v1:http.client.response.timeout': '150',
        'foreign-exchange-v1:maximumRedeliveries': '1',
        'foreign-exchange-v1:redeliveryDelay': '5',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a vendor slower than the response timeout is a 504 GC027 after the configured retries', async () => {
    t.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', delayMs: 600 });
    const started = Date.now();
    const r = await t.request('POST', PATH, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBe(504);
    expect(r.body.code).toBe('GC027');
    expect(r.body.detail).toContain('did not answer in time');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(t.sandbox.hubvendor.server.requests().filter((x) => x.path.startsWith('/v1/forex/'))).toHaveLength(2);
  });
});
