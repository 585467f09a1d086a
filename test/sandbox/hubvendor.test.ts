// The hubvendor simulator over real sockets: every vendor path, its errors, and the sim server's
// recording and fault injection.

import { composeIBAN } from 'ibantools';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BANK_DIRECTORY_BY_BIC_PATH,
  BANK_DIRECTORY_BY_BRANCH_CODE_PATH,
  BANK_DIRECTORY_BY_IBAN_PATH,
  fillPath,
  FOREX_EXCHANGE_RATES_PATH,
  type Hubvendor,
  IBAN_VALIDATION_PATH,
  PAYMENT_ORDER_CANCEL_PATH,
  PAYMENT_ORDER_UPDATE_PATH,
  PAYMENT_ORDERS_PATH,
  type PaymentStatusMessage,
  STANDING_ORDER_CANCEL_PATH,
  STANDING_ORDERS_PATH,
  startHubvendor,
} from '../../sandbox/hubvendor/index.ts';

let hub: Hubvendor;
const statusMessages: PaymentStatusMessage[] = [];

beforeAll(async () => {
  hub = await startHubvendor({ processingDelayMs: null, onPaymentStatus: (m) => statusMessages.push(m) });
});
afterAll(() => hub.close());
afterEach(() => {
  hub.server.clearFaults();
  hub.server.clearRequests();
});

interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(hub.url + path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
let refSeq = 0;
const order = (over: Record<string, unknown> = {}) => ({
  header: {},
  body: {
    paymentOrderProductId: 'SEPA',
    debitAccountId: '100234567',
    paymentCurrencyId: 'EUR',
    amount: '1250.00',
    beneficiaryIBAN: 'DE89370400440532013000',
    beneficiaryBIC: 'COBADEFFXXX',
    beneficiaryName: 'Erika Mustermann',
    orderingCustomerName: 'Max Mustermann',
    endToEndReference: `E2E-${Date.now()}-${++refSeq}`,
    executionDate: inDays(1),
    chargeBearer: 'SHA',
    narratives: ['Invoice 4711'],
    ...over,
  },
});

describe('FX rates', () => {
  const fx = (buy: string, sell: string, amount = '1000', type = 'BUY') =>
    `${fillPath(FOREX_EXCHANGE_RATES_PATH, { buyCurrency: buy, sellCurrency: sell, transactionAmount: amount, transactionAmountType: type })}?currencyMarket=1`;

  it('quotes a cross rate with buy < middle < sell', async () => {
    const r = await call('GET', fx('EUR', 'GBP'));
    expect(r.status).toBe(200);
    expect(r.json.header).toMatchObject({ status: 'success', audit: { T24_time: expect.any(Number) } });
    const b = r.json.body;
    expect(b).toMatchObject({
      buyCurrencyId: 'EUR',
      sellCurrencyId: 'GBP',
      currencyMarketId: '1',
      transactionAmount: '1000',
      transactionAmountType: 'BUY',
    });
    expect(b.middleRate).toBeCloseTo(0.79 / 0.92, 5);
    expect(b.buyRate).toBeLessThan(b.middleRate);
    expect(b.sellRate).toBeGreaterThan(b.middleRate);
    expect(b.rateDate).toBe(new Date().toISOString().slice(0, 10));
  });

  it('quotes the same currency at 1', async () => {
    const r = await call('GET', fx('USD', 'USD'));
    expect(r.json.body).toMatchObject({ buyRate: 1, sellRate: 1, middleRate: 1 });
  });

  it('answers 404 with the error envelope for an unknown currency', async () => {
    const r = await call('GET', fx('EUR', 'XYZ'));
    expect(r.status).toBe(404);
    expect(r.json.header.status).toBe('failed');
    expect(r.json.error).toEqual({
      type: 'BUSINESS',
      errorDetails: [{ fieldName: 'sellCurrency', code: 'HUB-FX-404', message: expect.any(String) }],
    });
  });

  it('answers 400 for a bad amount or amount type', async () => {
    const r = await call('GET', fx('EUR', 'USD', '12abc', 'BOTH'));
    expect(r.status).toBe(400);
    expect(r.json.error.errorDetails.map((d: any) => d.fieldName)).toEqual([
      'transactionAmount',
      'transactionAmountType',
    ]);
    expect((await call('GET', fx('JPY', 'USD', '10.5'))).status).toBe(400); // JPY has no minor units
  });
});

describe('payment orders', () => {
  it('validate_only prices the order and stores nothing', async () => {
    const before = hub.state.paymentOrders.size;
    const r = await call(
      'POST',
      `${PAYMENT_ORDERS_PATH}?validate_only=true`,
      order({ paymentOrderProductId: 'SWIFT', chargeBearer: 'OUR', paymentCurrencyId: 'USD', amount: '100.00' }),
    );
    expect(r.status).toBe(200);
    expect(r.json.header.transactionStatus).toBe('Validated');
    expect(r.json.body.charges).toEqual([
      { chargeType: 'TRANSFER_FEE', chargeCurrency: 'USD', chargeAmount: '15.00' },
      { chargeType: 'CORRESPONDENT_FEE', chargeCurrency: 'USD', chargeAmount: '20.00' },
    ]);
    expect(r.json.body.totalDebitAmount).toBe('135.00');
    expect(r.json.body.paymentInstruction).toBeUndefined();
    expect(hub.state.paymentOrders.size).toBe(before);
  });

  it('creates an order with a new id and the request reference, and reports ACCEPTED', async () => {
    const req = order();
    const r = await call('POST', PAYMENT_ORDERS_PATH, req, { authorization: 'Bearer abc.DEF-123' });
    expect(r.status).toBe(201);
    const id = r.json.body.paymentInstruction.instructionId;
    expect(id).toMatch(/^PO\d{8}\d{6}$/);
    expect(r.json.header).toMatchObject({ id, status: 'success', transactionStatus: 'Live' });
    expect(r.json.body.paymentInstruction.instructionReference).toBe(req.body.endToEndReference);
    expect(r.json.body.paymentStatus).toBe('ACCEPTED');
    expect(statusMessages.at(-1)).toMatchObject({
      paymentOrderId: id,
      endToEndReference: req.body.endToEndReference,
      status: 'ACCEPTED',
      statusReasonCode: null,
    });
    // the Authorization header is recorded byte for byte
    expect(hub.server.requests({ method: 'POST', path: PAYMENT_ORDERS_PATH })[0]!.headers.authorization).toBe(
      'Bearer abc.DEF-123',
    );
  });

  it('returns the same order for a repeated Idempotency-Key and for a repeated endToEndReference', async () => {
    const before = hub.state.paymentOrdersCreated;
    const byKey = order();
    const a = await call('POST', PAYMENT_ORDERS_PATH, byKey, { 'idempotency-key': 'k-1' });
    const b = await call('POST', PAYMENT_ORDERS_PATH, byKey, { 'idempotency-key': 'k-1' });
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.json.body.paymentInstruction.instructionId).toBe(a.json.body.paymentInstruction.instructionId);

    const byRef = order();
    const c = await call('POST', PAYMENT_ORDERS_PATH, byRef);
    const d = await call('POST', PAYMENT_ORDERS_PATH, byRef);
    expect(d.json.body.paymentInstruction.instructionId).toBe(c.json.body.paymentInstruction.instructionId);
    expect(hub.state.paymentOrdersCreated).toBe(before + 2);

    // the same reference for a different payment is refused
    const e = await call('POST', PAYMENT_ORDERS_PATH, { ...byRef, body: { ...byRef.body, amount: '9.00' } });
    expect(e.status).toBe(409);
    expect(e.json.error.errorDetails[0].code).toBe('HUB-PO-DUP');
  });

  it('reports every invalid field in one BUSINESS error', async () => {
    const r = await call(
      'POST',
      PAYMENT_ORDERS_PATH,
      order({
        amount: 12,
        beneficiaryIBAN: 'DE89370400440532013001',
        paymentOrderProductId: 'NOPE',
        beneficiaryName: undefined,
      }),
    );
    expect(r.status).toBe(400);
    expect(r.json.error.type).toBe('BUSINESS');
    const fields = r.json.error.errorDetails.map((d: any) => d.fieldName);
    expect(fields).toEqual(
      expect.arrayContaining(['amount', 'beneficiaryIBAN', 'paymentOrderProductId', 'beneficiaryName']),
    );
    expect((await call('POST', PAYMENT_ORDERS_PATH, { nope: 1 })).json.error).toMatchObject({ type: 'TECHNICAL' });
  });

  it('modifies, then cancels; cancel twice and modify after cancel are 409', async () => {
    const created = await call('POST', PAYMENT_ORDERS_PATH, order());
    const id = created.json.body.paymentInstruction.instructionId as string;
    const path = fillPath(PAYMENT_ORDER_UPDATE_PATH, { paymentOrderId: id });

    const m = await call('PUT', path, { header: {}, body: { amount: '99.50', narratives: ['changed'] } });
    expect(m.status).toBe(200);
    expect(m.json.body).toMatchObject({
      amount: '99.50',
      narratives: ['changed'],
      paymentInstruction: { instructionId: id },
    });
    expect(hub.state.paymentOrders.get(id)!.amount).toBe('99.50');
    expect((await call('PUT', path, { body: { paymentCurrencyId: 'USD' } })).json.error.errorDetails[0].code).toBe(
      'HUB-PO-NOCHANGE',
    );

    const cancelPath = fillPath(PAYMENT_ORDER_CANCEL_PATH, { paymentOrderId: id });
    const c = await call('PUT', cancelPath, { header: {}, body: {} });
    expect(c.status).toBe(200);
    expect(c.json.body.paymentStatus).toBe('CANCELLED');
    expect(statusMessages.at(-1)).toMatchObject({ paymentOrderId: id, status: 'CANCELLED' });

    const again = await call('PUT', cancelPath);
    expect(again.status).toBe(409);
    expect(again.json.error.errorDetails[0]).toMatchObject({ code: 'HUB-PO-409', message: 'order already cancelled' });
    const late = await call('PUT', path, { body: { amount: '1.00' } });
    expect(late.status).toBe(409);
    expect(late.json.error.type).toBe('BUSINESS');
  });

  it('answers 404 for an unknown order', async () => {
    const r = await call('PUT', fillPath(PAYMENT_ORDER_CANCEL_PATH, { paymentOrderId: 'PO19990101999999' }));
    expect(r.status).toBe(404);
    expect(r.json.error.errorDetails[0].code).toBe('HUB-PO-404');
    expect(
      (await call('PUT', fillPath(PAYMENT_ORDER_UPDATE_PATH, { paymentOrderId: 'nope' }), { body: {} })).status,
    ).toBe(404);
  });
});

describe('payment order lifecycle', () => {
  it('processes due orders and rejects amounts ending .99 with AC04', async () => {
    const messages: PaymentStatusMessage[] = [];
    const fast = await startHubvendor({ processingDelayMs: 20, onPaymentStatus: (m) => messages.push(m) });
    try {
      const post = async (over: Record<string, unknown>) =>
        (
          await fetch(fast.url + PAYMENT_ORDERS_PATH, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(order({ executionDate: undefined, ...over })),
          }).then((r) => r.json())
        ).body.paymentInstruction.instructionId as string;
      const ok = await post({ amount: '10.00' });
      const bad = await post({ amount: '10.99' });
      await expect.poll(() => messages.length, { timeout: 2000 }).toBe(4);
      expect(fast.state.paymentOrders.get(ok)!.status).toBe('PROCESSED');
      expect(messages.find((m) => m.paymentOrderId === bad && m.status !== 'ACCEPTED')).toMatchObject({
        status: 'REJECTED',
        statusReasonCode: 'AC04',
      });
    } finally {
      await fast.close();
    }
  });
});

describe('standing orders', () => {
  it('creates on the account and cancels by the returned id', async () => {
    const path = fillPath(STANDING_ORDERS_PATH, { standingOrderId: '100234567' });
    const body = order({
      frequency: 'MONTHLY',
      startDate: inDays(3),
      endDate: inDays(400),
      suppressFT: 'PAYMENT',
      debitAccountId: undefined,
    });
    const r = await call('POST', path, body);
    expect(r.status).toBe(201);
    const id = r.json.body.paymentInstruction.instructionId;
    expect(id).toBe('100234567.1');
    expect(r.json.body).toMatchObject({
      standingOrderStatus: 'ACTIVE',
      frequency: 'MONTHLY',
      suppressFT: 'PAYMENT',
      debitAccountId: '100234567',
    });

    const cancel = fillPath(STANDING_ORDER_CANCEL_PATH, { standingOrderId: id });
    expect((await call('PUT', cancel)).json.body.standingOrderStatus).toBe('CANCELLED');
    expect((await call('PUT', cancel)).status).toBe(409);
    expect((await call('PUT', fillPath(STANDING_ORDER_CANCEL_PATH, { standingOrderId: '1.99' }))).status).toBe(404);
  });

  it('refuses a bad frequency', async () => {
    const r = await call(
      'POST',
      fillPath(STANDING_ORDERS_PATH, { standingOrderId: '1' }),
      order({ frequency: 'SOMETIMES', startDate: inDays(1) }),
    );
    expect(r.status).toBe(400);
    expect(r.json.error.errorDetails[0].fieldName).toBe('frequency');
  });
});

describe('bank directory', () => {
  it('finds by BIC11, and every branch by BIC8, paginated', async () => {
    const r = await call('GET', `${BANK_DIRECTORY_BY_BIC_PATH}?bic=DEUTDEFFXXX`);
    expect(r.status).toBe(200);
    expect(r.json.header).toMatchObject({ page_size: 25, page_start: 1, total_size: 1 });
    expect(r.json.body[0]).toMatchObject({
      bic: 'DEUTDEFFXXX',
      bic8: 'DEUTDEFF',
      branchCode: '50070010',
      institutionName: 'Deutsche Bank AG',
      countryCode: 'DE',
      nationalIds: [{ type: 'DEBLZ', id: '50070010' }],
    });

    const p2 = await call('GET', `${BANK_DIRECTORY_BY_BIC_PATH}?bic=COBADEFF&page_size=1&page_start=2`);
    expect(p2.json.header).toMatchObject({ page_size: 1, page_start: 2, total_size: 2 });
    expect(p2.json.body).toHaveLength(1);
    expect(p2.json.body[0].city).toBe('Köln');
  });

  it('finds by IBAN, including the sort code branch of a UK IBAN', async () => {
    const de = await call(
      'GET',
      `${BANK_DIRECTORY_BY_IBAN_PATH}?iban=${composeIBAN({ countryCode: 'DE', bban: '500700100123456789' })}`,
    );
    expect(de.json.body[0].bic).toBe('DEUTDEFFXXX');
    const gb = await call('GET', `${BANK_DIRECTORY_BY_IBAN_PATH}?iban=GB29NWBK60161331926819`);
    expect(gb.json.body).toEqual([expect.objectContaining({ bic: 'NWBKGB2LXXX', branchCode: '601613' })]);
    expect((await call('GET', `${BANK_DIRECTORY_BY_IBAN_PATH}?iban=DE00123`)).status).toBe(400);
  });

  it('finds by national clearing code, with dashes and country filter', async () => {
    const aba = await call('GET', `${BANK_DIRECTORY_BY_BRANCH_CODE_PATH}?branchCode=021000021`);
    expect(aba.json.body[0]).toMatchObject({ bic: 'CHASUS33XXX', nationalIds: [{ type: 'USABA', id: '021000021' }] });
    const sort = await call('GET', `${BANK_DIRECTORY_BY_BRANCH_CODE_PATH}?branchCode=60-16-13&countryCode=GB`);
    expect(sort.json.body[0].bic).toBe('NWBKGB2LXXX');
    const none = await call('GET', `${BANK_DIRECTORY_BY_BRANCH_CODE_PATH}?branchCode=60-16-13&countryCode=DE`);
    expect(none.status).toBe(404);
    expect(none.json.error.errorDetails[0].code).toBe('HUB-BD-404');
    expect((await call('GET', BANK_DIRECTORY_BY_BRANCH_CODE_PATH)).status).toBe(400);
  });
});

describe('IBAN validation', () => {
  const validate = (iban: string) => call('GET', fillPath(IBAN_VALIDATION_PATH, { IBAN: iban }));

  it('validates real IBANs and names their bank', async () => {
    const de = await validate('DE89370400440532013000');
    expect(de.json.body).toEqual({
      iban: 'DE89370400440532013000',
      isValid: true,
      countryCode: 'DE',
      checkDigits: '89',
      nationalBankCode: '37040044',
      branchCode: null,
      accountNumber: '0532013000',
      bic: 'COBADEFFXXX',
      institutionName: 'Commerzbank AG',
      sepaMember: true,
      validationErrors: [],
    });
    const gb = await validate('GB29 NWBK 6016 1331 9268 19');
    expect(gb.json.body).toMatchObject({
      iban: 'GB29NWBK60161331926819',
      isValid: true,
      nationalBankCode: 'NWBK',
      branchCode: '601613',
      accountNumber: '31926819',
      bic: 'NWBKGB2LXXX',
    });
  });

  it('answers 200 isValid false with the reason for a wrong check digit', async () => {
    const r = await validate('DE89370400440532013001');
    expect(r.status).toBe(200);
    expect(r.json.body).toMatchObject({
      isValid: false,
      countryCode: 'DE',
      bic: null,
      validationErrors: ['WrongIBANChecksum'],
    });
  });
});

describe('sim server: recording and faults', () => {
  const rates = fillPath(FOREX_EXCHANGE_RATES_PATH, {
    buyCurrency: 'EUR',
    sellCurrency: 'USD',
    transactionAmount: '1',
    transactionAmountType: 'BUY',
  });

  it('records requests, readable and clearable over HTTP', async () => {
    await call('GET', `${rates}?currencyMarket=7`, undefined, { authorization: 'Bearer xyz' });
    const listed = await call('GET', `/__sandbox/requests?path=${encodeURIComponent(rates)}&method=GET`);
    expect(listed.json.requests).toHaveLength(1);
    expect(listed.json.requests[0]).toMatchObject({
      method: 'GET',
      path: rates,
      query: { currencyMarket: '7' },
      headers: { authorization: 'Bearer xyz' },
    });
    expect((await call('DELETE', '/__sandbox/requests')).status).toBe(204);
    expect(hub.server.requests()).toHaveLength(0);
  });

  it('injects a status for a number of matching requests', async () => {
    const added = await call('POST', '/__sandbox/faults', {
      path: '^/v1/forex/',
      status: 503,
      body: { down: true },
      headers: { 'retry-after': '1' },
      times: 2,
    });
    expect(added.status).toBe(201);
    const first = await call('GET', rates);
    expect(first.status).toBe(503);
    expect(first.json).toEqual({ down: true });
    expect(first.headers.get('retry-after')).toBe('1');
    expect((await call('GET', rates)).status).toBe(503);
    expect((await call('GET', rates)).status).toBe(200);
    expect((await call('GET', '/__sandbox/faults')).json.faults).toEqual([]);
  });

  it('only faults the matching method and path', async () => {
    hub.server.addFault({ method: 'POST', path: 'paymentOrders', status: 500 });
    expect((await call('GET', rates)).status).toBe(200);
    expect((await call('POST', PAYMENT_ORDERS_PATH, order())).status).toBe(500);
    expect((await call('DELETE', '/__sandbox/faults')).status).toBe(204);
    expect((await call('POST', PAYMENT_ORDERS_PATH, order())).status).toBe(201);
  });

  it('delays, then answers normally', async () => {
    hub.server.addFault({ delayMs: 150, times: 1 });
    const t0 = performance.now();
    const r = await call('GET', rates);
    expect(r.status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('resets the connection', async () => {
    hub.server.addFault({ reset: true, times: 1 });
    const err = await fetch(hub.url + rates).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect((err!.cause as NodeJS.ErrnoException).code).toMatch(/ECONNRESET|UND_ERR_SOCKET/);
    expect((await call('GET', rates)).status).toBe(200);
  });

  it('addFaultAfterHandler: the order is created, the answer is replaced (504 by default)', async () => {
    const before = hub.state.paymentOrdersCreated;
    const f = hub.addFaultAfterHandler({ method: 'POST', path: '^/v1/order/paymentOrders$', times: 1 });
    expect(hub.server.faults()).toEqual([expect.objectContaining({ id: f.id, after: true })]);
    const req = order();
    const lost = await call('POST', PAYMENT_ORDERS_PATH, req);
    expect(lost.status).toBe(504);
    expect(lost.json).toMatchObject({ error: 'fault injected after the handler ran', server: 'hubvendor' });
    expect(hub.state.paymentOrdersCreated).toBe(before + 1);
    const again = await call('POST', PAYMENT_ORDERS_PATH, req);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(hub.state.paymentOrdersCreated).toBe(before + 1);
  });

  it('refuses a bad rule, answers 404 and 400 for unknown paths and bad JSON', async () => {
    expect((await call('POST', '/__sandbox/faults', { path: '(' })).status).toBe(400);
    expect((await call('POST', '/__sandbox/faults', { stauts: 500 })).status).toBe(400);
    expect((await call('GET', '/nope')).status).toBe(404);
    const res = await fetch(hub.url + PAYMENT_ORDERS_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(res.status).toBe(400);
  });
});
