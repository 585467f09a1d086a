// Modification and cancellation by externalReferenceNo (rule 2: the bankReferenceId =
// paymentInstruction.instructionId of the initiation answer), over real sockets.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import type { RecordedRequest } from '../../sandbox/lib/recorder.ts';
import { BEARER, ROUTES, day, recurringOrder, sepaOrder } from './fixtures.ts';

let engine: TestEngine;

beforeAll(async () => {
  engine = await startTestEngine({ routes: ROUTES, set: { redeliveryDelay: '20', maximumRedeliveries: '2' } });
});
afterAll(async () => {
  await engine?.close();
});
afterEach(() => {
  engine.sandbox.hubvendor.server.clearFaults();
  engine.sandbox.hubvendor.server.clearRequests();
});

const hub = () => engine.sandbox.hubvendor;
/** hubvendor requests carry their payload in a `body` envelope */
type VendorCall = RecordedRequest & { body: { body: Record<string, unknown> } };
const vendorCalls = () => hub().server.requests() as VendorCall[];

async function newOrder(over: Record<string, unknown> = {}) {
  const order = sepaOrder(over);
  const r = await engine.request('POST', '/payments/payment-orders', order);
  expect(r.status).toBe(201);
  hub().server.clearRequests();
  return {
    order,
    id: r.body.bankReferenceId as string,
    e2e: order.transferTransactionInformation.endToEndIdentification as string,
  };
}

async function newStandingOrder() {
  const r = await engine.request('POST', '/payments/payment-orders', recurringOrder());
  expect(r.status).toBe(201);
  hub().server.clearRequests();
  return r.body.bankReferenceId as string;
}

describe('modification: PUT /payments/{externalReferenceNo}', () => {
  it('sends only the changed fields to paymentOrders.update.apiUri with {paymentOrderId}', async () => {
    const { id } = await newOrder();
    const date = day(45);
    const r = await engine.request(
      'PUT',
      `/payments/${id}`,
      {
        requestedExecutionDate: date,
        transferTransactionInformation: {
          instructedAmount: { amount: '250.00', currencyCode: 'EUR' },
          remittanceInformation: 'Invoice 42 and 43',
        },
      },
      { authorization: BEARER },
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      bankReferenceId: id,
      bankStatus: 'ACCEPTED',
      requestedExecutionDate: date,
      instructedAmount: { amount: '250.00', currencyCode: 'EUR' },
    });
    expect(r.body.modifiedAt).toBeDefined();
    const [call] = vendorCalls();
    expect(call.method).toBe('PUT');
    expect(call.path).toBe(`/v1/order/paymentOrders/${id}`);
    expect(call.headers.authorization).toBe(BEARER);
    expect(call.body).toEqual({
      header: {},
      body: { paymentCurrencyId: 'EUR', amount: '250.00', executionDate: date, narratives: ['Invoice 42 and 43'] },
    });
    expect(hub().state.paymentOrders.get(id)?.amount).toBe('250.00');
  });

  it('changes the beneficiary', async () => {
    const { id } = await newOrder();
    const r = await engine.request('PUT', `/payments/${id}`, {
      transferTransactionInformation: {
        counterparty: { name: 'John Roe' },
        counterpartyAccount: { identification: { identification: 'DE89 3704 0044 0532 0130 00', schemeName: 'IBAN' } },
      },
    });
    expect(r.status).toBe(200);
    expect(vendorCalls()[0].body.body).toEqual({
      beneficiaryName: 'John Roe',
      beneficiaryIBAN: 'DE89370400440532013000',
    });
  });

  it('the hub refusing to change the currency maps to 400 naming currencyCode', async () => {
    const { id } = await newOrder();
    const r = await engine.request('PUT', `/payments/${id}`, {
      transferTransactionInformation: { instructedAmount: { amount: '10.00', currencyCode: 'USD' } },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('GC025');
    expect(r.body.errors.map((e: any) => e.field)).toContain(
      '/transferTransactionInformation/instructedAmount/currencyCode',
    );
  });

  it('an unknown reference is 404 GC054', async () => {
    const r = await engine.request('PUT', '/payments/PO20990101999999', { requestedExecutionDate: day(3) });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('GC054');
    expect(r.body.detail).toContain('PO20990101999999');
  });

  it('modify after cancel is a vendor conflict: 409 GC003', async () => {
    const { id } = await newOrder();
    expect((await engine.request('POST', `/payments/${id}/cancel`)).status).toBe(200);
    const r = await engine.request('PUT', `/payments/${id}`, { requestedExecutionDate: day(3) });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'GC003', title: 'Conflict' });
    expect(r.body.detail).toContain('cancelled');
  });

  const bad: [string, unknown, string][] = [
    ['an empty change', {}, '/'],
    [
      'an empty transferTransactionInformation',
      { transferTransactionInformation: {} },
      '/transferTransactionInformation',
    ],
    [
      'an amount without its currency',
      { transferTransactionInformation: { instructedAmount: { amount: '10.00' } } },
      '/transferTransactionInformation/instructedAmount/currencyCode',
    ],
    [
      'too many decimals',
      { transferTransactionInformation: { instructedAmount: { amount: '10.001', currencyCode: 'EUR' } } },
      '/transferTransactionInformation/instructedAmount/amount',
    ],
    ['a past date', { requestedExecutionDate: day(-1) }, '/requestedExecutionDate'],
    [
      'a bad IBAN',
      {
        transferTransactionInformation: {
          counterpartyAccount: { identification: { identification: 'DE00370400440532013000', schemeName: 'IBAN' } },
        },
      },
      '/transferTransactionInformation/counterpartyAccount/identification/identification',
    ],
    ['a field that cannot change', { paymentType: 'SWIFT' }, '/paymentType'],
  ];
  for (const [name, body, field] of bad) {
    it(`${name}: 400 naming ${field}, no vendor call`, async () => {
      const r = await engine.request('PUT', '/payments/PO20990101000001', body);
      expect(r.status).toBe(400);
      expect(r.body.errors.map((e: any) => e.field)).toContain(field);
      expect(vendorCalls()).toHaveLength(0);
    });
  }

  it('a reference that is not an id is refused before any vendor call', async () => {
    for (const ref of ['a%20b', '..%2F..%2Fforex', 'a.b%2Fc', '%3Bx', 'x'.repeat(65)]) {
      const r = await engine.request('PUT', `/payments/${ref}`, { requestedExecutionDate: day(3) });
      expect(r.status, ref).toBe(400);
      expect(r.body.errors[0].field).toBe('/params/externalReferenceNo');
    }
    expect(vendorCalls()).toHaveLength(0);
  });

  it('a PUT is idempotent, so a 503 is retried', async () => {
    const { id } = await newOrder();
    hub().server.addFault({ method: 'PUT', path: '^/v1/order/paymentOrders/', status: 503, times: 1 });
    const r = await engine.request('PUT', `/payments/${id}`, { requestedExecutionDate: day(9) });
    expect(r.status).toBe(200);
    expect(vendorCalls()).toHaveLength(2);
  });
});

describe('cancellation: POST /payments/{externalReferenceNo}/cancel', () => {
  it('without cancellationType cancels the single payment at paymentOrders.cancel.apiUri', async () => {
    const { id } = await newOrder();
    const r = await engine.request('POST', `/payments/${id}/cancel`, undefined, { authorization: BEARER });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ bankReferenceId: id, bankStatus: 'CANCELLED', paymentMode: 'SINGLE' });
    const [call] = vendorCalls();
    expect(call.method).toBe('PUT');
    expect(call.path).toBe(`/v1/order/paymentOrders/${id}/cancel`);
    expect(call.headers.authorization).toBe(BEARER);
    expect(hub().state.paymentOrders.get(id)?.status).toBe('CANCELLED');
  });

  it('cancellationType SINGLE in the body or the query does the same', async () => {
    const a = await newOrder();
    expect((await engine.request('POST', `/payments/${a.id}/cancel`, { cancellationType: 'SINGLE' })).status).toBe(200);
    const b = await newOrder();
    expect((await engine.request('POST', `/payments/${b.id}/cancel?cancellationType=SINGLE`)).status).toBe(200);
    expect(vendorCalls().map((c) => c.path)).toEqual([`/v1/order/paymentOrders/${b.id}/cancel`]);
  });

  it('COMPLETE_SCHEDULE (query) cancels the standing order at standingOrders.cancel.apiUri', async () => {
    const id = await newStandingOrder();
    const r = await engine.request('POST', `/payments/${id}/cancel?cancellationType=COMPLETE_SCHEDULE`, undefined, {
      authorization: BEARER,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      bankReferenceId: id,
      bankStatus: 'CANCELLED',
      paymentMode: 'RECURRING',
      schedule: { scheduleStatus: 'CANCELLED', nextExecutionDate: null },
    });
    const [call] = vendorCalls();
    expect(call.method).toBe('PUT');
    expect(call.path).toBe(`/v1/order/standingOrders/${encodeURIComponent(id)}/cancel`);
    expect(call.headers.authorization).toBe(BEARER);
    expect(hub().state.standingOrders.get(id)?.status).toBe('CANCELLED');
  });

  it('COMPLETE_SCHEDULE (body) does the same; a second cancel is 409 GC003', async () => {
    const id = await newStandingOrder();
    expect(
      (await engine.request('POST', `/payments/${id}/cancel`, { cancellationType: 'COMPLETE_SCHEDULE' })).status,
    ).toBe(200);
    const again = await engine.request('POST', `/payments/${id}/cancel`, { cancellationType: 'COMPLETE_SCHEDULE' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('GC003');
  });

  const wrong: [string, string, unknown, string][] = [
    ['an unknown cancellationType in the query', '?cancellationType=ALL', undefined, '/query/cancellationType'],
    ['a lower-case value', '?cancellationType=complete_schedule', undefined, '/query/cancellationType'],
    ['an unknown cancellationType in the body', '', { cancellationType: 'NEXT_OCCURRENCE' }, '/cancellationType'],
    ['a number', '', { cancellationType: 1 }, '/cancellationType'],
    [
      'query and body disagreeing',
      '?cancellationType=SINGLE',
      { cancellationType: 'COMPLETE_SCHEDULE' },
      '/cancellationType',
    ],
    ['an unknown body field', '', { reason: 'x' }, '/reason'],
    ['a body that is not an object', '', ['SINGLE'], '/'],
  ];
  for (const [name, qs, body, field] of wrong) {
    it(`${name}: 400 naming ${field}, no vendor call`, async () => {
      const r = await engine.request('POST', `/payments/PO20990101000001/cancel${qs}`, body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('GC025');
      expect(r.body.errors.map((e: any) => e.field)).toContain(field);
      expect(vendorCalls()).toHaveLength(0);
    });
  }

  it('an unknown reference is 404 GC054, for a single payment and for a schedule', async () => {
    const a = await engine.request('POST', '/payments/PO20990101999999/cancel');
    expect(a.status).toBe(404);
    expect(a.body.code).toBe('GC054');
    const b = await engine.request('POST', '/payments/ACC-404.1/cancel?cancellationType=COMPLETE_SCHEDULE');
    expect(b.status).toBe(404);
    expect(b.body.code).toBe('GC054');
    expect(vendorCalls().map((c) => c.path)).toEqual([
      '/v1/order/paymentOrders/PO20990101999999/cancel',
      '/v1/order/standingOrders/ACC-404.1/cancel',
    ]);
  });
});

describe('rule 2: the reference is paymentInstruction.instructionId, not the reference sent', () => {
  it('the example flow of docs/connectors/payments.md', async () => {
    // 1. initiate with our own end-to-end reference
    const order = sepaOrder();
    const e2e = order.transferTransactionInformation.endToEndIdentification;
    const init = await engine.request('POST', '/payments/payment-orders', order);
    expect(init.status).toBe(201);
    const ref = init.body.paymentInstruction.instructionId;
    expect(ref).toBe(init.body.bankReferenceId);
    expect(init.body.paymentInstruction.instructionReference).toBe(e2e);
    // 2. the reference we sent is not an id the hub knows
    const wrong = await engine.request('POST', `/payments/${e2e}/cancel`);
    expect(wrong.status).toBe(404);
    // 3. the instructionId is
    const mod = await engine.request('PUT', `/payments/${ref}`, {
      transferTransactionInformation: { instructedAmount: { amount: '120.00', currencyCode: 'EUR' } },
    });
    expect(mod.status).toBe(200);
    const cancel = await engine.request('POST', `/payments/${ref}/cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.bankStatus).toBe('CANCELLED');
  });

  it('a processed payment can no longer be cancelled (409)', async () => {
    const { id } = await newOrder();
    hub().setPaymentStatus(id, 'PROCESSED');
    const r = await engine.request('POST', `/payments/${id}/cancel`);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('GC003');
  });

  it('a rejected payment answers bankStatus REJECTED with its ISO 20022 reason (idempotent resubmission)', async () => {
    const { order, id } = await newOrder();
    hub().setPaymentStatus(id, 'REJECTED', 'AC04');
    const r = await engine.request('POST', '/payments/payment-orders', order);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      bankReferenceId: id,
      bankStatus: 'REJECTED',
      reasonCode: 'AC04',
      reasonText: 'Closed account number',
      replayed: true,
    });
  });
});
