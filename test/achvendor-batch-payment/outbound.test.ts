// gc-achvendor-batch-payment-connector over real sockets: validation (every rule, all violations in
// one answer), vendor headers, idempotent retries, vendor errors mapped, timeouts, cancellation.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { startEngine, lintProject } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import {
  SUBMIT_CREDIT_BATCH_PATH,
  SUBMIT_DEBIT_BATCH_PATH,
  BATCH_CANCEL_PATH,
  type Achvendor,
} from '../../sandbox/achvendor/index.ts';
import { achvendorOf, batch, entry } from './fixtures.ts';

const ROUTES = ['routes/achvendor-batch-payment'];
let engine: TestEngine;
let ach: Achvendor;

beforeAll(async () => {
  engine = await startTestEngine({ routes: ROUTES, set: { 'batch.max.entries': '4', 'redelivery.delay': '20' } });
  ach = achvendorOf(engine);
  ach.setStepDelay(null);
  ach.setWebhookBaseUrl(null);
});
afterAll(() => engine?.close());
afterEach(() => {
  ach.server.clearFaults();
  ach.server.clearRequests();
  // a vendor healthy again for the next case: its breaker closed too (a breaker stays open for its delay)
  engine.services.http.guards.reset();
});

const submits = () => ach.server.requests({ path: /submit(credit|debit)batch$/ });
const credit = (b: unknown, qs = '', h?: Record<string, string>) =>
  engine.request('POST', `/batch-payments/credit-batches${qs}`, b, h);
const debit = (b: unknown, qs = '') => engine.request('POST', `/batch-payments/debit-batches${qs}`, b);
const ded = (n: number, prefix = 'DED') => [prefix, ...Array.from({ length: n }, (_, i) => `f${i + 1}`)].join(';');
const withAddenda = (text: string, sec = 'CCD') =>
  batch({ sec_code: sec }, [entry({ addenda: [{ type: '05', payment_related_information: text }] })]);
const fields = (r: { body: any }) => (r.body.errors ?? []).map((e: any) => e.field);

describe('submission', () => {
  it('submits a credit batch with every vendor header and originating_dfi from values', async () => {
    const b = batch();
    const r = await credit(b);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      batch_id: expect.stringMatching(/^ACHB-/),
      batch_reference: b.batch_reference,
      direction: 'credit',
      status: 'RECEIVED',
      entry_count: 2,
      total_credit_minor: 250000,
      total_debit_minor: 0,
      validate_only: false,
    });
    const [req] = submits();
    expect(req.path).toBe(SUBMIT_CREDIT_BATCH_PATH);
    expect(req.headers).toMatchObject({
      client_key: 'sandbox-achvendor-client-key',
      client_requestor_reference: 'gc-batch-sandbox',
      product: 'business_transfers',
      payment_channel: 'business_banking',
      requestor_type: 'party',
      access_channel: 'platform-sandbox',
      idempotent_request_key: expect.any(String),
    });
    expect(Date.parse(String(req.headers.timestamp))).not.toBeNaN();
    expect(req.body).toMatchObject({ ...b, originating_dfi: '021000021' });
    expect(ach.batches.get(r.body.batch_id)?.status).toBe('RECEIVED');
  });

  it('submits a debit batch to submit_debit_batch', async () => {
    const r = await debit(batch({}, [entry({ transaction_code: '27' }), entry({ transaction_code: '37' })]));
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ direction: 'debit', total_debit_minor: 250000, total_credit_minor: 0 });
    expect(submits().map((q) => q.path)).toEqual([SUBMIT_DEBIT_BATCH_PATH]);
  });

  it('validate_only=true validates completely and sends nothing', async () => {
    const r = await credit(batch(), '?validate_only=true');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'VALIDATED',
      validate_only: true,
      entry_count: 2,
      total_credit_minor: 250000,
    });
    expect(r.body.batch_id).toBeUndefined();
    const bad = await credit(batch({}, [entry({ receiving_dfi_routing: '123456789' })]), '?validate_only=true');
    expect(bad.status).toBe(400);
    expect(submits()).toHaveLength(0);
  });

  it('refuses a validate_only value other than true/false', async () => {
    const r = await credit(batch(), '?validate_only=yes');
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('/query/validate_only');
  });

  it('resubmitting the identical batch returns the same batch (no duplicate)', async () => {
    const b = batch();
    const a = await credit(b);
    const c = await credit(b);
    expect(c.status).toBe(202);
    expect(c.body.batch_id).toBe(a.body.batch_id);
    expect([...ach.batches.values()].filter((x) => x.batch_reference === b.batch_reference)).toHaveLength(1);
  });

  it("uses the caller's Idempotency-Key when given", async () => {
    await credit(batch(), '', { 'idempotency-key': 'caller-key-1' });
    expect(submits()[0].headers.idempotent_request_key).toBe('caller-key-1');
  });
});

describe('validation: every violation in one 400, nothing sent', () => {
  it('reports all violations of all entries with index and field', async () => {
    const r = await credit(
      batch({ sec_code: 'XYZ', effective_entry_date: '2020-01-01' }, [
        entry({ receiving_dfi_routing: '123456789' }),
        entry({ transaction_code: '27' }),
        entry({ amount_minor: 0 }),
        entry({ addenda: [{ payment_related_information: ded(6) }] }),
      ]),
    );
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe('GC025');
    expect(r.body.errors).toEqual(
      expect.arrayContaining([
        { field: '/sec_code', message: expect.stringContaining('XYZ') },
        { field: '/effective_entry_date', message: 'must be today or later' },
        { index: 0, field: '/entries/0/receiving_dfi_routing', message: expect.stringContaining('check digit') },
        { index: 1, field: '/entries/1/transaction_code', message: expect.stringContaining('27 is a debit code') },
        { index: 2, field: '/entries/2/amount_minor', message: expect.stringContaining('positive integer') },
        {
          index: 3,
          field: '/entries/3/addenda/0/payment_related_information',
          message: expect.stringContaining('exactly 7'),
        },
      ]),
    );
    expect(r.body.errors).toHaveLength(6);
    expect(submits()).toHaveLength(0);
  });

  it('accepts the supported SEC codes and refuses others', async () => {
    for (const sec of ['PPD', 'CCD', 'CTX', 'WEB', 'TEL']) {
      const r = await credit(batch({ sec_code: sec }), '?validate_only=true');
      expect(r.status, sec).toBe(200);
    }
    const r = await credit(batch({ sec_code: 'IAT' }), '?validate_only=true');
    expect(r.status).toBe(400);
    expect(fields(r)).toEqual(['/sec_code']);
  });

  it('credit batches take credit codes only, debit batches debit codes only', async () => {
    for (const code of ['22', '32', '42', '52'])
      expect((await credit(batch({}, [entry({ transaction_code: code })]), '?validate_only=true')).status, code).toBe(
        200,
      );
    for (const code of ['27', '37', '47'])
      expect((await debit(batch({}, [entry({ transaction_code: code })]), '?validate_only=true')).status, code).toBe(
        200,
      );
    const c = await credit(batch({}, [entry({ transaction_code: '37' })]));
    expect(c.body.errors).toEqual([
      {
        index: 0,
        field: '/entries/0/transaction_code',
        message: 'transaction code 37 is a debit code; a credit batch takes 22, 32, 42, 52',
      },
    ]);
    const d = await debit(batch({}, [entry({ transaction_code: '22' }), entry({ transaction_code: '99' })]));
    expect(d.body.errors).toEqual([
      {
        index: 0,
        field: '/entries/0/transaction_code',
        message: 'transaction code 22 is a credit code; a debit batch takes 27, 37, 47',
      },
      {
        index: 1,
        field: '/entries/1/transaction_code',
        message: expect.stringContaining('99 is not a supported NACHA code'),
      },
    ]);
    expect(submits()).toHaveLength(0);
  });

  it('checks the ABA check digit of receiving_dfi_routing', async () => {
    for (const ok of ['021000021', '011000015', '231380104']) {
      expect((await credit(batch({}, [entry({ receiving_dfi_routing: ok })]), '?validate_only=true')).status, ok).toBe(
        200,
      );
    }
    const r = await credit(
      batch({}, [
        entry({ receiving_dfi_routing: '123456789' }),
        entry({ receiving_dfi_routing: '02100002' }),
        entry({ receiving_dfi_routing: '02100002A' }),
      ]),
    );
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => [e.index, e.message])).toEqual([
      [0, 'ABA routing number 123456789 has a wrong check digit'],
      [1, 'must be a 9-digit ABA routing number'],
      [2, 'must be a 9-digit ABA routing number'],
    ]);
  });

  it('amounts are positive integers in minor units', async () => {
    const r = await credit(
      batch({}, [
        entry({ amount_minor: 0 }),
        entry({ amount_minor: -5 }),
        entry({ amount_minor: 12.5 }),
        entry({ amount_minor: 1 }),
      ]),
    );
    expect(r.body.errors.map((e: any) => e.field)).toEqual([
      '/entries/0/amount_minor',
      '/entries/1/amount_minor',
      '/entries/2/amount_minor',
    ]);
    const s = await credit(batch({}, [entry({ amount_minor: '100' })]));
    expect(s.status).toBe(400);
    expect(s.body.errors[0]).toMatchObject({ field: '/entries/0/amount_minor', message: 'must be of type number' });
  });

  it('DED addenda: the prefix and exactly 7 semicolon-delimited fields', async () => {
    expect((await credit(withAddenda(ded(7)), '?validate_only=true')).status).toBe(200);
    expect(
      (await credit(withAddenda('DED;CS123456;20251128;CS;12500;N;JANE DOE;NY'), '?validate_only=true')).status,
    ).toBe(200);
    expect((await credit(withAddenda('DED;;;;;;;'), '?validate_only=true')).status).toBe(200); // 7 empty fields
    for (const [text, msg] of [
      [ded(6), 'found 6'],
      [ded(8), 'found 8'],
      ['DED', 'found 0'],
      ['DED*f1*f2*f3*f4*f5*f6*f7', "starts with 'DED;'"],
      ['DEDX;f1;f2;f3;f4;f5;f6;f7', "starts with 'DED;'"],
    ]) {
      const r = await credit(withAddenda(text), '?validate_only=true');
      expect(r.status, text).toBe(400);
      expect(r.body.errors).toEqual([
        { index: 0, field: '/entries/0/addenda/0/payment_related_information', message: expect.stringContaining(msg) },
      ]);
    }
  });

  it('TXP addenda: the prefix and exactly 8 semicolon-delimited fields', async () => {
    expect((await credit(withAddenda(ded(8, 'TXP')), '?validate_only=true')).status).toBe(200);
    expect((await credit(withAddenda('TXP;123456789;941;251231;T;150000;;'), '?validate_only=true')).status).toBe(400); // 7 fields
    expect((await credit(withAddenda('TXP;123456789;941;251231;T;150000;;;'), '?validate_only=true')).status).toBe(200); // 8, three empty
    for (const [text, msg] of [
      [ded(7, 'TXP'), 'found 7'],
      [ded(9, 'TXP'), 'found 9'],
      ['TXP*1*2*3*4*5*6*7*8', "starts with 'TXP;'"],
    ]) {
      const r = await credit(withAddenda(text), '?validate_only=true');
      expect(r.status, text).toBe(400);
      expect(r.body.errors[0].message).toContain(msg);
      expect(r.body.errors[0].message).toContain('TXP;f1;...;f8');
    }
  });

  it('free-form addenda are not DED/TXP records; at most 80 characters', async () => {
    expect((await credit(withAddenda('INVOICE 4711 AND 4712'), '?validate_only=true')).status).toBe(200);
    const r = await credit(withAddenda('X'.repeat(81)), '?validate_only=true');
    expect(r.body.errors[0].message).toContain('at most 80 characters');
  });

  it('addenda records allowed per SEC code', async () => {
    const two = [{ payment_related_information: 'A' }, { payment_related_information: 'B' }];
    expect((await credit(batch({ sec_code: 'CTX' }, [entry({ addenda: two })]), '?validate_only=true')).status).toBe(
      200,
    );
    const ppd = await credit(batch({ sec_code: 'PPD' }, [entry({ addenda: two })]));
    expect(ppd.body.errors[0]).toMatchObject({
      index: 0,
      field: '/entries/0/addenda',
      message: 'a PPD entry takes at most 1 addenda record, found 2',
    });
    const tel = await credit(batch({ sec_code: 'TEL' }, [entry({ addenda: [two[0]] })]));
    expect(tel.body.errors[0].message).toBe('a TEL entry takes at most 0 addenda records, found 1');
  });

  it('refuses a batch over batch.max.entries (here 4) and an empty batch', async () => {
    const r = await credit(batch({}, [entry(), entry(), entry(), entry(), entry()]));
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { field: '/entries', message: 'the batch holds 5 entries; a batch takes at most 4 (batch.max.entries)' },
    ]);
    const e = await credit(batch({}, []));
    expect(e.body.errors).toEqual([{ field: '/entries', message: 'a batch needs at least one entry' }]);
    expect(submits()).toHaveLength(0);
  });

  it('account_type must match the transaction code; entry references are unique', async () => {
    const r = await credit(
      batch({}, [
        entry({ account_type: 'SAVINGS' }),
        entry({ entry_reference: 'DUP' }),
        entry({ entry_reference: 'DUP', transaction_code: '32', account_type: 'SAVINGS' }),
      ]),
    );
    expect(r.body.errors).toHaveLength(3);
    expect(r.body.errors).toEqual(
      expect.arrayContaining([
        {
          index: 0,
          field: '/entries/0/account_type',
          message: 'transaction code 22 is for a CHECKING account, not SAVINGS',
        },
        { index: 1, field: '/entries/1/entry_reference', message: expect.stringContaining('more than one entry') },
        { index: 2, field: '/entries/2/entry_reference', message: expect.stringContaining('more than one entry') },
      ]),
    );
  });

  it('structural errors name the field; originating_dfi cannot be given', async () => {
    const b = batch();
    delete b.company_name;
    b.originating_dfi = '021000021';
    const r = await credit(b);
    expect(r.status).toBe(400);
    expect(fields(r)).toEqual(expect.arrayContaining(['/company_name', '/originating_dfi']));
    expect(submits()).toHaveLength(0);
  });
});

describe('vendor errors, retries and idempotency', () => {
  const fault = (status: number, body: unknown, times?: number, headers?: Record<string, string>) =>
    ach.server.addFault({ method: 'POST', path: 'submitcreditbatch$', status, body, times, headers });

  it('retries 503 per redelivery.* and succeeds; the vendor saw 1 + retries calls', async () => {
    fault(503, { code: 'RSK-90-9503', message: 'Service temporarily unavailable', target: 'gateway' }, 2);
    const r = await credit(batch());
    expect(r.status).toBe(202);
    expect(submits()).toHaveLength(3);
    expect(new Set(submits().map((q) => q.headers.idempotent_request_key)).size).toBe(1);
  });

  it('gives up after redelivery.maximumRetries (3) and maps to 502 GC027', async () => {
    fault(500, { code: 'RSK-90-9500', message: 'Internal error', target: 'gateway' });
    const r = await credit(batch());
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({
      code: 'GC027',
      title: 'Generic Error',
      detail: 'The ACH vendor answered 500 RSK-90-9500: Internal error',
    });
    expect(submits()).toHaveLength(4);
  });

  it('a failure after the vendor accepted the batch is retried without a duplicate', async () => {
    ach.failAfterAccept(1);
    const b = batch();
    const r = await credit(b);
    expect(r.status).toBe(202);
    expect(submits()).toHaveLength(2);
    const mine = [...ach.batches.values()].filter((x) => x.batch_reference === b.batch_reference);
    expect(mine).toHaveLength(1);
    expect(r.body.batch_id).toBe(mine[0].batch_id);
  });

  it('does not retry statuses outside retry.statuses (400) and maps body errors to 400 GC025', async () => {
    fault(400, {
      code: 'RSK-20-2005',
      message: 'Transaction code 27 is not allowed in a credit batch',
      target: 'body.entries[0].transaction_code',
    });
    const r = await credit(batch());
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'GC025',
      detail: 'body.entries[0].transaction_code: Transaction code 27 is not allowed in a credit batch',
      vendorError: { code: 'RSK-20-2005' },
    });
    expect(submits()).toHaveLength(1);
  });

  it.each([
    [401, { code: 'RSK-10-1002', message: 'Invalid header client key', target: 'header.client_key' }, 401, 'GC002'],
    [400, { code: 'RSK-10-1001', message: 'Missing mandatory header product', target: 'header.product' }, 502, 'GC027'],
    [
      403,
      { code: 'RSK-10-2403', message: 'Originator not enrolled for product', target: 'header.product' },
      502,
      'GC027',
    ],
    [403, { code: 'RSK-20-2403', message: 'Limit exceeded', target: 'body' }, 403, 'GC004'],
    [404, { code: 'RSK-30-3001', message: 'Batch not found', target: 'body.batch_id' }, 404, 'GC054'],
    [409, { code: 'RSK-20-2002', message: 'Duplicate batch_reference', target: 'body.batch_reference' }, 409, 'GC003'],
    [422, { code: 'RSK-20-2001', message: 'Invalid entries', target: 'body.entries' }, 400, 'GC025'],
    [502, { code: 'RSK-90-9502', message: 'Bad gateway', target: 'gateway' }, 502, 'GC027'],
  ])('vendor %i %o -> %i %s', async (vs, body, status, code) => {
    fault(vs, body);
    const r = await credit(batch());
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
    expect(JSON.stringify(r.body)).not.toContain('sandbox-achvendor-client-key');
  });

  it('429 is retried, then mapped to 429 GC031 with Retry-After', async () => {
    fault(429, { code: 'RSK-90-9429', message: 'Too many requests', target: 'gateway' }, undefined, {
      'retry-after': '7',
    });
    const r = await credit(batch());
    expect(r.status).toBe(429);
    expect(r.body.code).toBe('GC031');
    expect(r.headers.get('retry-after')).toBe('7');
    expect(submits()).toHaveLength(4);
  });

  it('a real duplicate batch_reference with other content is a 409 GC003', async () => {
    const b = batch();
    await credit(b);
    const r = await credit({ ...b, company_name: 'OTHER NAME' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      code: 'GC003',
      vendorError: { code: 'RSK-20-2002', target: 'body.batch_reference' },
    });
  });
});

describe('cancellation', () => {
  it('cancels a batch before submission, with the vendor headers and originating_dfi', async () => {
    const s = await credit(batch());
    const r = await engine.request('POST', `/batch-payments/${s.body.batch_id}/cancel`, { reason: 'wrong file' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ batch_id: s.body.batch_id, status: 'CANCELLED', previous_status: 'RECEIVED' });
    const [req] = ach.server.requests({ path: BATCH_CANCEL_PATH });
    expect(req.body).toEqual({ batch_id: s.body.batch_id, originating_dfi: '021000021', reason: 'wrong file' });
    expect(req.headers).toMatchObject({
      client_key: 'sandbox-achvendor-client-key',
      product: 'business_transfers',
      requestor_type: 'party',
    });
    expect(ach.batches.get(s.body.batch_id)?.status).toBe('CANCELLED');
    // without a body, and again: still CANCELLED
    expect((await engine.request('POST', `/batch-payments/${s.body.batch_id}/cancel`)).body.status).toBe('CANCELLED');
  });

  it('refuses to cancel a submitted batch (409 GC003) and an unknown one (404 GC054)', async () => {
    const s = await credit(batch());
    ach.advance(s.body.batch_id);
    ach.advance(s.body.batch_id);
    ach.advance(s.body.batch_id);
    expect(ach.batches.get(s.body.batch_id)?.status).toBe('SUBMITTED');
    const r = await engine.request('POST', `/batch-payments/${s.body.batch_id}/cancel`);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'GC003', detail: expect.stringContaining('SUBMITTED') });
    const u = await engine.request('POST', '/batch-payments/ACHB-NOPE/cancel');
    expect(u.status).toBe(404);
    expect(u.body.code).toBe('GC054');
  });

  it('validates the batch id and the optional body', async () => {
    expect((await engine.request('POST', '/batch-payments/a%20b/cancel')).status).toBe(400);
    const r = await engine.request('POST', '/batch-payments/X1/cancel', { reason: '', other: 1 });
    expect(r.status).toBe(400);
    expect(ach.server.requests({ path: BATCH_CANCEL_PATH })).toHaveLength(0);
  });
});

describe('configuration', () => {
  it('a wrong client key gets the vendor error mapped to 401 GC002, key never echoed', async () => {
    const e = await startTestEngine({ routes: ROUTES, set: { 'achvendor-client-key': 'not-the-key' } });
    try {
      achvendorOf(e).setWebhookBaseUrl(null);
      const r = await e.request('POST', '/batch-payments/credit-batches', batch());
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({
        code: 'GC002',
        vendorError: { code: 'RSK-10-1002', message: 'Invalid header client key', target: 'header.client_key' },
      });
      expect(JSON.stringify(r.body)).not.toContain('not-the-key');
    } finally {
      await e.close();
    }
  });

  it('the client key is a literal header value (quotes and backslashes sent as they are, never parsed); an empty access_channel is left out', async () => {
    const key = 'k\'ey\\" & $x';
    const e = await startTestEngine({
      routes: ROUTES,
      set: { 'achvendor-client-key': key, 'achvendor.access_channel': '' },
    });
    try {
      const sim = achvendorOf(e);
      sim.setWebhookBaseUrl(null);
      await e.request('POST', '/batch-payments/debit-batches', batch({}, [entry({ transaction_code: '27' })]));
      await e.request('POST', '/batch-payments/ACHB-X/cancel');
      const reqs = sim.server.requests();
      expect(reqs.map((q) => q.path)).toEqual([SUBMIT_DEBIT_BATCH_PATH, BATCH_CANCEL_PATH]);
      for (const q of reqs) {
        expect(q.headers.client_key).toBe(key);
        expect(q.headers).not.toHaveProperty('access_channel');
        expect(q.headers).toMatchObject({
          client_requestor_reference: 'gc-batch-sandbox',
          product: 'business_transfers',
          payment_channel: 'business_banking',
          requestor_type: 'party',
        });
      }
    } finally {
      await e.close();
    }
  });

  it('timeouts from values are hit and retried (idempotent), then 504 GC027; retryFlag false: one call', async () => {
    const e = await startTestEngine({
      routes: ROUTES,
      set: {
        'http.client.response.timeout': '150',
        'http.client.request.timeout': '300',
        'redelivery.maximumRetries': '1',
        'redelivery.delay': '10',
      },
    });
    try {
      const sim = achvendorOf(e);
      sim.setWebhookBaseUrl(null);
      sim.server.addFault({ path: 'submitcreditbatch$', delayMs: 1000 });
      const started = Date.now();
      const r = await e.request('POST', '/batch-payments/credit-batches', batch());
      expect(r.status).toBe(504);
      expect(r.body).toMatchObject({ code: 'GC027', detail: expect.stringContaining('response timeout') });
      // two attempts cut at 150 ms each; waiting out the 1000 ms delay twice would take 2000 ms or more
      // (a wide bound: a loaded 2-core machine stretches timers)
      expect(Date.now() - started).toBeLessThan(1900);
      expect(sim.server.requests({ path: SUBMIT_CREDIT_BATCH_PATH })).toHaveLength(2);
    } finally {
      await e.close();
    }
    const f = await startTestEngine({ routes: ROUTES, set: { retryFlag: 'false' } });
    try {
      const sim = achvendorOf(f);
      sim.setWebhookBaseUrl(null);
      sim.server.addFault({
        path: 'submitcreditbatch$',
        status: 503,
        body: { code: 'RSK-90-9503', message: 'down', target: 'gateway' },
      });
      expect((await f.request('POST', '/batch-payments/credit-batches', batch())).status).toBe(502);
      expect(sim.server.requests({ path: SUBMIT_CREDIT_BATCH_PATH })).toHaveLength(1);
    } finally {
      await f.close();
    }
  });

  it('a missing or invalid routing.number stops start-up naming it (checked once at load, not per request)', async () => {
    for (const value of ['', '123456789', 'abc']) {
      const err = await startTestEngine({ routes: ROUTES, set: { 'routing.number': value } }).then(
        () => undefined,
        (e) => e,
      );
      expect(err, `routing.number '${value}'`).toBeDefined();
      // submit-batch.yaml is said once, although both of its instances (credit, debit) fail on it
      const diags = (err.diagnostics as { file: string; message: string }[]).filter((d) =>
        d.message.includes('routing.number'),
      );
      expect(err.diagnostics).toHaveLength(diags.length);
      expect(diags.map((d) => d.file.split('/').pop()).sort()).toEqual(['cancel-batch.yaml', 'submit-batch.yaml']);
      for (const d of diags)
        expect(d.message).toContain('property routing.number of batch-payments-v0 is not a valid ABA routing number');
    }
    // lint reports it the same way
    const diags = await lintProject({
      routes: ROUTES,
      env: 'sandbox',
      set: { 'routing.number': '123456789' },
      logger: createLogger('silent'),
    });
    expect(diags.filter((d) => d.message.includes('routing.number'))).toHaveLength(2);
  });

  it('production without routing.number: start-up fails naming routing.number, and so does lint --env production; lint of the project alone passes', async () => {
    const keys = { ACHVENDOR_BASE_URL: 'http://127.0.0.1:9', ACHVENDOR_CLIENT_KEY: 'k' };
    const err = await startEngine({
      routes: ROUTES,
      env: 'production',
      port: 0,
      processEnv: keys,
      logger: createLogger('silent'),
    }).then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeDefined();
    const text = JSON.stringify(err.diagnostics ?? err.message);
    expect(text).toContain("environmental key 'achvendor-routing-number' is not set (property 'routing.number'");
    // the project alone: keys are a deployment's, not checked
    expect(await lintProject({ routes: ROUTES, processEnv: {}, logger: createLogger('silent') })).toEqual([]);
    // an environment named: its keys resolved as the start resolves them, the same diagnostics
    expect(
      await lintProject({ routes: ROUTES, env: 'production', processEnv: keys, logger: createLogger('silent') }),
    ).toEqual(err.diagnostics);
    // the environmental key is the fallback: a valid one starts the connector
    const ok = await startEngine({
      routes: ROUTES,
      env: 'production',
      port: 0,
      processEnv: { ...keys, ACHVENDOR_ROUTING_NUMBER: '021000021' },
      logger: createLogger('silent'),
    });
    await ok.close();
  });

  it('missing achvendor-base-url and achvendor-client-key: startup error naming them', async () => {
    const err = await startEngine({
      routes: ['routes/achvendor-batch-payment', 'routes/achvendor-batch-payment-inbound'],
      env: 'development',
      port: 0,
      processEnv: {},
      logger: createLogger('silent'),
    }).then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeDefined();
    const text = JSON.stringify(err.diagnostics ?? err.message);
    expect(text).toContain("environmental key 'achvendor-base-url' is not set");
    expect(text).toContain("environmental key 'achvendor-client-key' is not set");
    expect(text).toContain("environmental key 'achvendor-webhook-secret' is not set");
  });
});
