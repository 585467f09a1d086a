// Payment initiation (single, recurring, validate_only), input validation before any vendor call,
// idempotent retries and Authorization pass-through, over real sockets against the hubvendor simulator.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import type { RecordedRequest } from '../../sandbox/lib/recorder.ts';
import { BEARER, ROUTES, day, e2e, recurringOrder, sepaOrder, withField } from './fixtures.ts';

let engine: TestEngine;
const PO = '/v1/order/paymentOrders';

beforeAll(async () => {
  engine = await startTestEngine({
    routes: ROUTES,
    set: {
      redeliveryDelay: '40',
      maximumRedeliveries: '2',
      backOffMultiplier: '3',
      'http.client.response.timeout': '400',
    },
  });
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
const created = () => hub().state.paymentOrdersCreated;

describe('single payment initiation', () => {
  it('submits the order to hubvendor.paymentOrders.apiUri and answers the bank reference (rule 2 id)', async () => {
    const order = sepaOrder();
    const r = await engine.request('POST', '/payments/payment-orders', order);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      bankStatus: 'ACCEPTED',
      reasonCode: null,
      paymentMode: 'SINGLE',
      endToEndIdentification: order.transferTransactionInformation.endToEndIdentification,
      requestedExecutionDate: order.requestedExecutionDate,
      instructedAmount: { amount: '100.25', currencyCode: 'EUR' },
      totalDebitAmount: { currencyCode: 'EUR' },
    });
    expect(r.body.bankReferenceId).toMatch(/^PO\d{14}$/);
    expect(r.body.paymentInstruction).toEqual({
      instructionId: r.body.bankReferenceId,
      instructionReference: order.transferTransactionInformation.endToEndIdentification,
    });
    const [call] = vendorCalls();
    expect(call.method).toBe('POST');
    expect(call.path).toBe(PO);
    expect(call.query).toEqual({});
    expect(call.body).toEqual({
      header: {},
      body: {
        paymentOrderProductId: 'SEPA',
        debitAccountIBAN: 'DE89370400440532013000',
        paymentCurrencyId: 'EUR',
        amount: '100.25',
        beneficiaryIBAN: 'FR1420041010050500013M02606',
        beneficiaryName: 'Jane Doe',
        orderingCustomerName: 'Acme GmbH',
        endToEndReference: order.transferTransactionInformation.endToEndIdentification,
        executionDate: order.requestedExecutionDate,
        narratives: ['Invoice 42'],
      },
    });
    expect(hub().state.paymentOrders.get(r.body.bankReferenceId)?.status).toBe('ACCEPTED');
  });

  it('maps SWIFT with a BIC, an account id and charges OUR', async () => {
    const order = sepaOrder({ paymentType: 'SWIFT' });
    order.originatorAccount.identification = { identification: 'ACC-7', schemeName: 'ID' };
    order.transferTransactionInformation.instructedAmount = { amount: '5000', currencyCode: 'USD' };
    order.transferTransactionInformation.counterpartyAccount.identification = {
      identification: '123456789',
      schemeName: 'BBAN',
    };
    order.transferTransactionInformation.counterpartyBank = { bic: 'chasus33xxx' };
    order.transferTransactionInformation.chargeBearer = 'OUR';
    const r = await engine.request('POST', '/payments/payment-orders', order);
    expect(r.status).toBe(201);
    const body = vendorCalls()[0].body.body;
    expect(body).toMatchObject({
      debitAccountId: 'ACC-7',
      beneficiaryAccountId: '123456789',
      beneficiaryBIC: 'CHASUS33XXX',
      chargeBearer: 'OUR',
    });
    expect(body.debitAccountIBAN).toBeUndefined();
    expect(r.body.charges.map((c: any) => c.chargeType)).toEqual(['TRANSFER_FEE', 'CORRESPONDENT_FEE']);
    expect(r.body.totalDebitAmount).toEqual({ amount: '5035.00', currencyCode: 'USD' });
  });

  it('with validate_only=true calls the same path in validation mode: fees and total debit, nothing submitted', async () => {
    const before = created();
    const r = await engine.request('POST', '/payments/payment-orders?validate_only=true', sepaOrder());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      validationStatus: 'VALID',
      charges: [{ chargeType: 'TRANSFER_FEE', amount: { currencyCode: 'EUR' } }],
      totalDebitAmount: { currencyCode: 'EUR' },
    });
    expect(Number(r.body.totalDebitAmount.amount)).toBeCloseTo(100.25 + Number(r.body.charges[0].amount.amount), 2);
    expect(r.body.bankReferenceId).toBeUndefined();
    const [call] = vendorCalls();
    expect(call.path).toBe(PO);
    expect(call.query).toEqual({ validate_only: 'true' });
    expect(created()).toBe(before);
  });

  it('validate_only=false submits as usual', async () => {
    const r = await engine.request('POST', '/payments/payment-orders?validate_only=false', sepaOrder());
    expect(r.status).toBe(201);
    expect(vendorCalls()[0].query).toEqual({});
  });
});

describe('recurring payment initiation', () => {
  it('sends a schedule to hubvendor.standingOrders.apiUri with {standingOrderId} and suppressFT', async () => {
    const order = recurringOrder();
    const r = await engine.request('POST', '/payments/payment-orders', order);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      bankStatus: 'ACCEPTED',
      paymentMode: 'RECURRING',
      schedule: {
        frequency: 'MONTHLY',
        startDate: order.schedule.startDate,
        endDate: order.schedule.endDate,
        scheduleStatus: 'ACTIVE',
      },
    });
    expect(r.body.bankReferenceId).toMatch(/^ACC-1001\.\d+$/);
    const [call] = vendorCalls();
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/v1/order/standingOrders/ACC-1001');
    expect(call.body.body).toMatchObject({
      debitAccountId: 'ACC-1001',
      frequency: 'MONTHLY',
      startDate: order.schedule.startDate,
      endDate: order.schedule.endDate,
      suppressFT: 'PAYMENT',
    });
  });

  it('maps every n-th period to a named frequency or a T24 frequency code', async () => {
    const cases: [string, number, string][] = [
      ['WEEKLY', 2, 'FORTNIGHTLY'],
      ['MONTHLY', 3, 'QUARTERLY'],
      ['MONTHLY', 6, 'HALF_YEARLY'],
      ['MONTHLY', 2, 'e0Y e2M e0W e0D e0F'],
      ['DAILY', 3, 'e0Y e0M e0W e3D e0F'],
      ['YEARLY', 1, 'YEARLY'],
    ];
    for (const [f, every, expected] of cases) {
      const order = recurringOrder();
      order.schedule = { transferFrequency: f, every, startDate: day(5) };
      const r = await engine.request('POST', '/payments/payment-orders', order);
      expect(r.status, `${f} every ${every}`).toBe(201);
      expect(r.body.schedule.frequency).toBe(expected);
    }
  });

  it('a schedule without paymentMode is recurring too', async () => {
    const order = recurringOrder();
    delete order.paymentMode;
    const r = await engine.request('POST', '/payments/payment-orders', order);
    expect(r.status).toBe(201);
    expect(r.body.paymentMode).toBe('RECURRING');
  });

  it('validate_only with a schedule prices one execution on the payment order path', async () => {
    const order = recurringOrder();
    const before = hub().state.standingOrdersCreated;
    const r = await engine.request('POST', '/payments/payment-orders?validate_only=true', order);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      validationStatus: 'VALID',
      paymentMode: 'RECURRING',
      requestedExecutionDate: order.schedule.startDate,
    });
    expect(vendorCalls()[0].path).toBe(PO);
    expect(hub().state.standingOrdersCreated).toBe(before);
  });
});

describe('validation before any vendor call', () => {
  const bad: [string, (o: Record<string, any>) => Record<string, any>, string][] = [
    [
      'amount with too many decimals for EUR',
      (o) => withField(o, 'transferTransactionInformation.instructedAmount.amount', '10.123'),
      '/transferTransactionInformation/instructedAmount/amount',
    ],
    [
      'decimals on a zero-decimal currency',
      (o) =>
        withField(withField(o, 'paymentType', 'SWIFT'), 'transferTransactionInformation', {
          ...o.transferTransactionInformation,
          instructedAmount: { amount: '100.5', currencyCode: 'JPY' },
          counterpartyBank: { bic: 'DEUTDEFFXXX' },
        }),
      '/transferTransactionInformation/instructedAmount/amount',
    ],
    [
      'negative amount',
      (o) => withField(o, 'transferTransactionInformation.instructedAmount.amount', '-5.00'),
      '/transferTransactionInformation/instructedAmount/amount',
    ],
    [
      'zero amount',
      (o) => withField(o, 'transferTransactionInformation.instructedAmount.amount', '0.00'),
      '/transferTransactionInformation/instructedAmount/amount',
    ],
    [
      'amount as a number',
      (o) => withField(o, 'transferTransactionInformation.instructedAmount.amount', 12.5),
      '/transferTransactionInformation/instructedAmount/amount',
    ],
    [
      'unknown currency',
      (o) => withField(o, 'transferTransactionInformation.instructedAmount.currencyCode', 'EUX'),
      '/transferTransactionInformation/instructedAmount/currencyCode',
    ],
    [
      'IBAN with a wrong check digit',
      (o) =>
        withField(
          o,
          'transferTransactionInformation.counterpartyAccount.identification.identification',
          'FR1520041010050500013M02606',
        ),
      '/transferTransactionInformation/counterpartyAccount/identification/identification',
    ],
    [
      'originator IBAN with a wrong check digit',
      (o) => withField(o, 'originatorAccount.identification.identification', 'DE88370400440532013000'),
      '/originatorAccount/identification/identification',
    ],
    [
      'bad BIC',
      (o) => withField(o, 'transferTransactionInformation.counterpartyBank', { bic: 'DEUT-DE' }),
      '/transferTransactionInformation/counterpartyBank/bic',
    ],
    ['execution date in the past', (o) => withField(o, 'requestedExecutionDate', day(-1)), '/requestedExecutionDate'],
    ['impossible date', (o) => withField(o, 'requestedExecutionDate', '2031-02-30'), '/requestedExecutionDate'],
    ['missing paymentType', (o) => withField(o, 'paymentType', undefined), '/paymentType'],
    [
      'missing counterparty name',
      (o) => withField(o, 'transferTransactionInformation.counterparty.name', undefined),
      '/transferTransactionInformation/counterparty/name',
    ],
    [
      'missing instructed amount',
      (o) => withField(o, 'transferTransactionInformation.instructedAmount', undefined),
      '/transferTransactionInformation/instructedAmount',
    ],
    [
      'unknown scheme',
      (o) => withField(o, 'transferTransactionInformation.counterpartyAccount.identification.schemeName', 'PAN'),
      '/transferTransactionInformation/counterpartyAccount/identification/schemeName',
    ],
    ['unknown field', (o) => withField(o, 'debtorName', 'x'), '/debtorName'],
    [
      'SWIFT without a BIC',
      (o) => withField(o, 'paymentType', 'SWIFT'),
      '/transferTransactionInformation/counterpartyBank/bic',
    ],
    [
      'SEPA in USD',
      (o) => withField(o, 'transferTransactionInformation.instructedAmount.currencyCode', 'USD'),
      '/transferTransactionInformation/instructedAmount/currencyCode',
    ],
    ['RECURRING without a schedule', (o) => withField(o, 'paymentMode', 'RECURRING'), '/schedule'],
    ['SINGLE with a schedule', () => withField(recurringOrder(), 'paymentMode', 'SINGLE'), '/paymentMode'],
    [
      'schedule starting in the past',
      () => withField(recurringOrder(), 'schedule.startDate', day(-3)),
      '/schedule/startDate',
    ],
    [
      'schedule ending before it starts',
      () => withField(recurringOrder(), 'schedule.endDate', day(2)),
      '/schedule/endDate',
    ],
    [
      'schedule with an unknown frequency',
      () => withField(recurringOrder(), 'schedule.transferFrequency', 'HOURLY'),
      '/schedule/transferFrequency',
    ],
    ['schedule every 0', () => withField(recurringOrder(), 'schedule.every', 0), '/schedule/every'],
  ];

  for (const [name, make, field] of bad) {
    it(`${name}: 400 naming ${field}, and the hub saw nothing`, async () => {
      const r = await engine.request('POST', '/payments/payment-orders', make(sepaOrder()));
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body.code).toBe('GC025');
      expect(r.body.errors.map((e: any) => e.field)).toContain(field);
      expect(r.body.detail).toContain(field);
      expect(vendorCalls()).toHaveLength(0);
    });
  }

  it('reports every problem at once', async () => {
    const o = withField(
      withField(sepaOrder(), 'requestedExecutionDate', day(-1)),
      'transferTransactionInformation.instructedAmount.currencyCode',
      'EUX',
    );
    const r = await engine.request('POST', '/payments/payment-orders', withField(o, 'paymentType', undefined));
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => e.field).sort()).toEqual([
      '/paymentType',
      '/requestedExecutionDate',
      '/transferTransactionInformation/instructedAmount/currencyCode',
    ]);
    expect(vendorCalls()).toHaveLength(0);
  });

  it('validate_only must be true or false', async () => {
    const r = await engine.request('POST', '/payments/payment-orders?validate_only=yes', sepaOrder());
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('/query/validate_only');
    expect(vendorCalls()).toHaveLength(0);
  });

  it('an Idempotency-Key header must be 1 to 64 visible characters', async () => {
    const r = await engine.request('POST', '/payments/payment-orders', sepaOrder(), {
      'idempotency-key': 'k'.repeat(65),
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0]).toEqual({
      field: '/headers/idempotency-key',
      message: 'must be 1 to 64 visible ASCII characters',
    });
    expect(vendorCalls()).toHaveLength(0);
  });

  it('no body, a non-JSON body and a wrong content type are refused without a vendor call', async () => {
    const none = await engine.request('POST', '/payments/payment-orders');
    expect(none.status).toBe(400);
    const broken = await engine.request('POST', '/payments/payment-orders', '{"paymentType":', {
      'content-type': 'application/json',
    });
    expect(broken.status).toBe(400);
    const text = await engine.request('POST', '/payments/payment-orders', 'paymentType=SEPA', {
      'content-type': 'text/plain',
    });
    expect(text.status).toBe(415);
    expect(vendorCalls()).toHaveLength(0);
  });
});

describe('vendor errors', () => {
  it('maps a hub validation error to 400 GC025 naming the unified field', async () => {
    const order = sepaOrder({ paymentType: 'SEPAINST' });
    order.transferTransactionInformation.instructedAmount.amount = '150000.00';
    const r = await engine.request('POST', '/payments/payment-orders', order);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('GC025');
    expect(r.body.errors).toEqual([
      {
        field: '/transferTransactionInformation/instructedAmount/amount',
        message: 'SEPAINST amount exceeds 100000.00 EUR',
        vendorCode: 'HUB-PO-SEPA',
      },
    ]);
    expect(vendorCalls()).toHaveLength(1);
  });

  it('a status outside retryStatuses is not retried and maps to 502 GC027', async () => {
    hub().server.addFault({ method: 'POST', path: '^/v1/order/paymentOrders$', status: 500, times: 1 });
    const r = await engine.request('POST', '/payments/payment-orders', sepaOrder());
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({ code: 'GC027', title: 'Generic Error' });
    expect(vendorCalls()).toHaveLength(1);
  });

  it('a hub 429 after the retries maps to 429 GC031 with Retry-After', async () => {
    hub().server.addFault({
      method: 'POST',
      path: '^/v1/order/paymentOrders$',
      status: 429,
      headers: { 'retry-after': '7' },
      times: 3,
    });
    const r = await engine.request('POST', '/payments/payment-orders', sepaOrder());
    expect(r.status).toBe(429);
    expect(r.body.code).toBe('GC031');
    expect(r.headers.get('retry-after')).toBe('7');
    expect(vendorCalls()).toHaveLength(3);
  });

  it('a reused end-to-end reference with a different payment is 409 GC003', async () => {
    const order = sepaOrder();
    expect((await engine.request('POST', '/payments/payment-orders', order)).status).toBe(201);
    const other = withField(order, 'transferTransactionInformation.instructedAmount.amount', '999.00');
    const r = await engine.request('POST', '/payments/payment-orders', other);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('GC003');
  });
});

describe('retries and idempotency', () => {
  it('retries the statuses of retryStatuses up to maximumRedeliveries with redeliveryDelay x backOffMultiplier', async () => {
    hub().server.addFault({ method: 'POST', path: '^/v1/order/paymentOrders$', status: 503, times: 2 });
    const before = created();
    const r = await engine.request('POST', '/payments/payment-orders', sepaOrder());
    expect(r.status).toBe(201);
    const calls = vendorCalls();
    expect(calls).toHaveLength(3);
    // every attempt carries the same idempotency key
    expect(new Set(calls.map((c) => c.headers['idempotency-key'])).size).toBe(1);
    // delays 40 ms, then 40 x 3 = 120 ms
    expect(calls[1].time - calls[0].time).toBeGreaterThanOrEqual(35);
    expect(calls[2].time - calls[1].time).toBeGreaterThanOrEqual(110);
    expect(created()).toBe(before + 1);
  });

  it('gives up after maximumRedeliveries and maps the last answer', async () => {
    hub().server.addFault({ method: 'POST', path: '^/v1/order/paymentOrders$', status: 503, times: 10 });
    const r = await engine.request('POST', '/payments/payment-orders', sepaOrder());
    expect(r.status).toBe(502);
    expect(r.body.code).toBe('GC027');
    expect(r.body.detail).toContain('503');
    expect(vendorCalls()).toHaveLength(3);
  });

  it('the hub accepted, then the answer was lost (504): the retry replays the same order, no duplicate', async () => {
    const order = sepaOrder();
    hub().addFaultAfterHandler({ method: 'POST', path: '^/v1/order/paymentOrders$', status: 504, times: 1 });
    const before = created();
    const r = await engine.request('POST', '/payments/payment-orders', order);
    expect(r.status).toBe(201);
    expect(r.body.replayed).toBe(true);
    const calls = vendorCalls();
    expect(calls).toHaveLength(2);
    expect(calls[0].headers['idempotency-key']).toBe(
      `e2e:${order.transferTransactionInformation.endToEndIdentification}`,
    );
    expect(calls[1].headers['idempotency-key']).toBe(calls[0].headers['idempotency-key']);
    expect(created()).toBe(before + 1);
    const ids = [...hub().state.paymentOrders.values()].filter(
      (o) => o.endToEndReference === order.transferTransactionInformation.endToEndIdentification,
    );
    expect(ids).toHaveLength(1);
    expect(r.body.bankReferenceId).toBe(ids[0].paymentOrderId);
  });

  it('the hub answered too late (response timeout) and the late request went through: still one order', async () => {
    hub().server.addFault({ method: 'POST', path: '^/v1/order/paymentOrders$', delayMs: 700, times: 1 });
    const order = sepaOrder();
    const key = `e2e:${order.transferTransactionInformation.endToEndIdentification}`;
    // observe the hub's idempotency lookups for this key (the hub itself runs unchanged): the
    // delayed first request is handled only after the retry created the order, so it must find it
    const state = hub().state;
    const lookup = state.findIdempotent;
    const lookups: boolean[] = [];
    state.findIdempotent = function (scope, k) {
      const found = lookup.call(this, scope, k);
      if (scope === 'po' && k === key) lookups.push(found !== undefined);
      return found;
    };
    try {
      const before = created();
      const r = await engine.request('POST', '/payments/payment-orders', order);
      expect(r.status).toBe(201);
      const calls = vendorCalls();
      expect(calls).toHaveLength(2);
      expect(calls.map((c) => c.headers['idempotency-key'])).toEqual([key, key]);
      // wait (with a deadline) until the delayed first request reached the handler and was answered as a replay
      const deadline = Date.now() + 5000;
      while (lookups.length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
      expect(lookups).toEqual([false, true]);
      expect(created()).toBe(before + 1);
      expect(
        [...state.paymentOrders.values()].filter(
          (o) => o.endToEndReference === order.transferTransactionInformation.endToEndIdentification,
        ),
      ).toHaveLength(1);
    } finally {
      state.findIdempotent = lookup;
    }
  });

  it('the same for a recurring payment: the standing order is created once', async () => {
    hub().addFaultAfterHandler({ method: 'POST', path: '^/v1/order/standingOrders/', status: 502, times: 1 });
    const before = hub().state.standingOrdersCreated;
    const r = await engine.request('POST', '/payments/payment-orders', recurringOrder());
    expect(r.status).toBe(201);
    expect(vendorCalls()).toHaveLength(2);
    expect(hub().state.standingOrdersCreated).toBe(before + 1);
  });

  it("a caller's Idempotency-Key is the key: a resubmission answers the first payment", async () => {
    const key = `key-${e2e()}`;
    const order = sepaOrder();
    delete order.transferTransactionInformation.endToEndIdentification;
    const before = created();
    const a = await engine.request('POST', '/payments/payment-orders', order, { 'Idempotency-Key': key });
    const b = await engine.request('POST', '/payments/payment-orders', order, { 'Idempotency-Key': key });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.bankReferenceId).toBe(a.body.bankReferenceId);
    expect(b.body.replayed).toBe(true);
    expect(created()).toBe(before + 1);
    expect(vendorCalls().map((c) => c.headers['idempotency-key'])).toEqual([key, key]);
  });

  it('without a key or reference every attempt of one request still shares a generated key', async () => {
    const order = sepaOrder();
    delete order.transferTransactionInformation.endToEndIdentification;
    hub().addFaultAfterHandler({ method: 'POST', path: '^/v1/order/paymentOrders$', status: 503, times: 1 });
    const before = created();
    const r = await engine.request('POST', '/payments/payment-orders', order);
    expect(r.status).toBe(201);
    const calls = vendorCalls();
    expect(calls).toHaveLength(2);
    expect(calls[0].headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[1].headers['idempotency-key']).toBe(calls[0].headers['idempotency-key']);
    expect(created()).toBe(before + 1);
  });
});

describe('rule 3: Authorization', () => {
  it('reaches the hub byte for byte, on initiation, validation and recurring calls', async () => {
    await engine.request('POST', '/payments/payment-orders', sepaOrder(), { authorization: BEARER });
    await engine.request('POST', '/payments/payment-orders?validate_only=true', sepaOrder(), { authorization: BEARER });
    await engine.request('POST', '/payments/payment-orders', recurringOrder(), { authorization: BEARER });
    const calls = vendorCalls();
    expect(calls).toHaveLength(3);
    for (const c of calls) expect(c.headers.authorization).toBe(BEARER);
  });

  it('is not invented when the caller sent none', async () => {
    await engine.request('POST', '/payments/payment-orders', sepaOrder());
    expect(vendorCalls()[0].headers.authorization).toBeUndefined();
  });

  it('is never echoed in an error answer', async () => {
    hub().server.addFault({
      method: 'POST',
      path: '^/v1/order/paymentOrders$',
      status: 401,
      body: {
        header: { status: 'failed' },
        error: { type: 'TECHNICAL', errorDetails: [{ fieldName: '', code: 'HUB-AUTH-401', message: 'token expired' }] },
      },
      times: 1,
    });
    const r = await engine.request('POST', '/payments/payment-orders', sepaOrder(), { authorization: BEARER });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('GC002');
    expect(JSON.stringify(r.body)).not.toContain('eyJ');
  });
});
