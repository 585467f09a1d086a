// Vendor text relayed to callers and logs is masked and bounded: a vendor copying the caller's
// bearer token or the connector's client key into an error message, or answering a 5,000
// character message, never puts the credential or the whole text into the problem or a log line.

import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { BEARER, ROUTES, sepaOrder } from '../hubvendor-payment/fixtures.ts';
import { achvendorOf, batch } from '../achvendor-batch-payment/fixtures.ts';
import type { Achvendor } from '../../sandbox/achvendor/index.ts';

const TOKEN = BEARER.slice('Bearer '.length);
const SIGNATURE = TOKEN.split('.')[2];
const CLIENT_KEY = 'sandbox-achvendor-client-key';

let engine: TestEngine;
let ach: Achvendor;
const lines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  engine = await startTestEngine({
    routes: [...ROUTES, 'routes/achvendor-batch-payment'],
    logger: createLogger('debug', sink),
    set: { redeliveryDelay: '20', 'redelivery.delay': '20' },
  });
  ach = achvendorOf(engine);
  ach.setStepDelay(null);
  ach.setWebhookBaseUrl(null);
});
afterAll(async () => {
  await engine?.close();
});
afterEach(() => {
  engine.sandbox.hubvendor.setEchoHeader(null);
  for (const s of [engine.sandbox.hubvendor.server, ach.server]) {
    s.clearFaults();
    s.clearRequests();
  }
  lines.length = 0;
});

const hub = () => engine.sandbox.hubvendor;
const logged = () => lines.join('\n');

describe("a vendor echoing the caller's bearer token", () => {
  it('the problem detail and the log lines hold only the masked form', async () => {
    const c = await engine.request('POST', '/payments/payment-orders', sepaOrder());
    const id = c.body.bankReferenceId as string;
    await engine.request('POST', `/payments/${id}/cancel`);
    hub().setEchoHeader('authorization');
    lines.length = 0;
    const r = await engine.request('POST', `/payments/${id}/cancel`, undefined, { authorization: BEARER });
    expect(r.status).toBe(409);
    // the echo reached the engine: the vendor's message names the request's authorization
    expect(r.body.detail).toMatch(/^order already cancelled \(request authorization: Bearer eyJh\*\*\*\*\)$/);
    expect(JSON.stringify(r.body)).not.toContain(SIGNATURE);
    expect(lines.some((l) => l.includes('"exchange failed"') && l.includes('Bearer eyJh****'))).toBe(true);
    expect(logged()).not.toContain(SIGNATURE);
    expect(logged()).not.toContain(TOKEN.slice(0, 20));
  });
});

describe('a vendor echoing the configured client key', () => {
  it('is masked in detail, vendorError and the log', async () => {
    ach.server.addFault({
      path: 'cancelbatch$',
      status: 401,
      body: { code: 'RSK-10-1002', message: `Invalid header client key ${CLIENT_KEY}`, target: 'header.client_key' },
    });
    const s = await engine.request('POST', '/batch-payments/credit-batches', batch());
    lines.length = 0;
    const r = await engine.request('POST', `/batch-payments/${s.body.batch_id}/cancel`);
    expect(r.status).toBe(401);
    expect(r.body.detail).toContain('Invalid header client key sand****');
    expect(r.body.vendorError).toMatchObject({ code: 'RSK-10-1002', message: 'Invalid header client key sand****' });
    expect(JSON.stringify(r.body)).not.toContain(CLIENT_KEY);
    expect(logged()).toContain('sand****');
    expect(logged()).not.toContain(CLIENT_KEY);
  });
});

describe('a 5,000 character vendor message', () => {
  it('is bounded in the problem detail and the log line', async () => {
    const c = await engine.request('POST', '/payments/payment-orders', sepaOrder());
    const long = 'x'.repeat(5000);
    hub().server.addFault({
      method: 'PUT',
      path: '/cancel$',
      status: 409,
      times: 1,
      body: {
        header: { status: 'failed' },
        error: { type: 'BUSINESS', errorDetails: [{ fieldName: 'paymentOrderId', code: 'HUB-PO-409', message: long }] },
      },
    });
    lines.length = 0;
    const r = await engine.request('POST', `/payments/${c.body.bankReferenceId}/cancel`);
    expect(r.status).toBe(409);
    expect(r.body.detail.length).toBeLessThanOrEqual(501);
    expect(r.body.detail.startsWith('x'.repeat(500))).toBe(true);
    const line = lines.find((l) => l.includes('"exchange failed"'))!;
    expect(line.length).toBeLessThan(1500);
  });
});
