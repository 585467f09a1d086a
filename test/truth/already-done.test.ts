// A cancel the vendor committed, whose answer was lost (the sandbox's "fail after the handler ran"
// fault: the vendor does the work, then answers 504), is retried: the retry's "already cancelled"
// answer is the truth of the first attempt and answers 200. A first-attempt "already cancelled",
// or one after a failure that proves the vendor did nothing (429), stays a 409.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { ROUTES, recurringOrder, sepaOrder } from '../hubvendor-payment/fixtures.ts';
import { achvendorOf, batch } from '../achvendor-batch-payment/fixtures.ts';
import { BATCH_CANCEL_PATH, type Achvendor } from '../../sandbox/achvendor/index.ts';

let engine: TestEngine;
let ach: Achvendor;

beforeAll(async () => {
  engine = await startTestEngine({
    routes: [...ROUTES, 'routes/achvendor-batch-payment'],
    set: { redeliveryDelay: '20', maximumRedeliveries: '2', 'redelivery.delay': '20' },
  });
  ach = achvendorOf(engine);
  ach.setStepDelay(null);
  ach.setWebhookBaseUrl(null);
});
afterAll(async () => {
  await engine?.close();
});
afterEach(() => {
  for (const s of [engine.sandbox.hubvendor.server, ach.server]) {
    s.clearFaults();
    s.clearRequests();
  }
  ach.setRepeatedCancel('answer');
});

const hub = () => engine.sandbox.hubvendor;

async function order(body: Record<string, unknown>): Promise<string> {
  const r = await engine.request('POST', '/payments/payment-orders', body);
  expect(r.status).toBe(201);
  hub().server.clearRequests();
  return r.body.bankReferenceId as string;
}

describe('payment cancel (SINGLE)', () => {
  it('committed, answer lost (504), retried: 200 with the order as the hub holds it', async () => {
    const id = await order(sepaOrder());
    hub().server.addFault({ method: 'PUT', path: '/cancel$', after: true, times: 1 });
    const r = await engine.request('POST', `/payments/${id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      bankReferenceId: id,
      bankStatus: 'CANCELLED',
      paymentMode: 'SINGLE',
      instructedAmount: { amount: '100.25', currencyCode: 'EUR' },
    });
    expect(hub().state.paymentOrders.get(id)?.status).toBe('CANCELLED');
    // the cancel, its retry (409 already cancelled), then the read of the order
    expect(
      hub()
        .server.requests()
        .map((q) => `${q.method} ${q.path}`),
    ).toEqual([
      `PUT /v1/order/paymentOrders/${id}/cancel`,
      `PUT /v1/order/paymentOrders/${id}/cancel`,
      `GET /v1/order/paymentOrders/${id}`,
    ]);
  });

  it('a first-attempt 409 (cancelled earlier) stays 409', async () => {
    const id = await order(sepaOrder());
    expect((await engine.request('POST', `/payments/${id}/cancel`)).status).toBe(200);
    const again = await engine.request('POST', `/payments/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'GC003', detail: 'order already cancelled' });
  });

  it('a 409 after a 429 (the vendor did nothing) stays 409', async () => {
    const id = await order(sepaOrder());
    await engine.request('POST', `/payments/${id}/cancel`);
    hub().server.addFault({ method: 'PUT', path: '/cancel$', status: 429, times: 1 });
    const r = await engine.request('POST', `/payments/${id}/cancel`);
    expect(r.status).toBe(409);
    expect(hub().server.requests({ path: /\/cancel$/ })).toHaveLength(3);
  });

  it('a 409 that is not "already cancelled" (already processed) stays 409 after a lost answer', async () => {
    const id = await order(sepaOrder());
    hub().setPaymentStatus(id, 'PROCESSED');
    hub().server.addFault({ method: 'PUT', path: '/cancel$', status: 504, times: 1 });
    const r = await engine.request('POST', `/payments/${id}/cancel`);
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe('order already processed');
  });
});

describe('standing order cancel (COMPLETE_SCHEDULE)', () => {
  it('committed, answer lost (504), retried: 200 CANCELLED; a second cancel is a 409', async () => {
    const id = await order(recurringOrder());
    hub().server.addFault({ method: 'PUT', path: '/standingOrders/.*/cancel$', after: true, times: 1 });
    const r = await engine.request('POST', `/payments/${id}/cancel`, { cancellationType: 'COMPLETE_SCHEDULE' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      bankReferenceId: id,
      bankStatus: 'CANCELLED',
      paymentMode: 'RECURRING',
      schedule: { scheduleStatus: 'CANCELLED' },
    });
    expect(r.body.instructedAmount).toBeUndefined();
    expect(hub().state.standingOrders.get(id)?.status).toBe('CANCELLED');
    const again = await engine.request('POST', `/payments/${id}/cancel`, { cancellationType: 'COMPLETE_SCHEDULE' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('GC003');
  });
});

describe('batch cancel, at a vendor that refuses to cancel a cancelled batch', () => {
  it('committed, answer lost (504), retried: 200 CANCELLED; a second cancel is a 409 GC003', async () => {
    ach.setRepeatedCancel('refuse');
    const s = await engine.request('POST', '/batch-payments/credit-batches', batch());
    expect(s.status).toBe(202);
    ach.server.addFault({ path: 'cancelbatch$', after: true, times: 1 });
    const r = await engine.request('POST', `/batch-payments/${s.body.batch_id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ batch_id: s.body.batch_id, status: 'CANCELLED' });
    expect(ach.batches.get(s.body.batch_id)?.status).toBe('CANCELLED');
    expect(ach.server.requests({ path: BATCH_CANCEL_PATH })).toHaveLength(2);
    const again = await engine.request('POST', `/batch-payments/${s.body.batch_id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'GC003', vendorError: { code: 'RSK-30-3003' } });
  });

  it('at the default vendor a repeated cancel answers CANCELLED with the real previous status', async () => {
    const s = await engine.request('POST', '/batch-payments/credit-batches', batch());
    ach.server.addFault({ path: 'cancelbatch$', after: true, times: 1 });
    const r = await engine.request('POST', `/batch-payments/${s.body.batch_id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ batch_id: s.body.batch_id, status: 'CANCELLED', previous_status: 'RECEIVED' });
  });
});
