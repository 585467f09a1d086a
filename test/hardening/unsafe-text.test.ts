// Text that must never reach a vendor: control characters (a CR/LF in a NACHA record breaks or
// injects records), invisible format characters (a zero width space in a name defeats screening),
// bidi controls, line separators and lone surrogates in any text field of the unified API are a
// 400 naming the field, and the vendor simulator records no request. Over real sockets.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { batch, entry } from '../achvendor-batch-payment/fixtures.ts';
import { sepaOrder, withField } from '../hubvendor-payment/fixtures.ts';
import type { Achvendor } from '../../sandbox/achvendor/index.ts';
import type { Screenvendor } from '../../sandbox/screenvendor/index.ts';

let engine: TestEngine;
let ach: Achvendor;
let sv: Screenvendor;

beforeAll(async () => {
  engine = await startTestEngine({
    routes: ['routes/hubvendor-payment', 'routes/screenvendor-screening', 'routes/achvendor-batch-payment'],
  });
  ach = engine.sandbox.services.achvendor as Achvendor;
  sv = engine.sandbox.services.screenvendor as Screenvendor;
  ach.setStepDelay(null);
  ach.setWebhookBaseUrl(null);
});
afterAll(() => engine?.close());
afterEach(() => {
  ach.server.clearRequests();
  sv.server.clearRequests();
  engine.sandbox.hubvendor.server.clearRequests();
});

/** every request any of the three simulators received */
const vendorCalls = () => [
  ...ach.server.requests(),
  ...sv.server.requests(),
  ...engine.sandbox.hubvendor.server.requests(),
];
const fieldsOf = (r: { body: any }) => (r.body?.errors ?? []).map((e: any) => e.field);

const person = (firstName: string, lastName = 'Petrov') => ({
  customerReference: `CUST-${process.pid}-${Date.now()}`,
  person: { firstName, lastName, dateOfBirth: '1962-04-17', nationality: ['RU'], gender: 'MALE' },
});

describe('refused text', () => {
  it('an ACH individual_name with NUL and CR/LF: 400 naming the entry field, nothing sent', async () => {
    const r = await engine.request(
      'POST',
      '/batch-payments/credit-batches',
      batch({}, [entry({ individual_name: 'JANE\u0000DOE\r\n6' })]),
    );
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toContain('/entries/0/individual_name');
    expect(vendorCalls()).toHaveLength(0);
  });

  it('an ACH text field outside the NACHA character set (accents) is refused', async () => {
    const r = await engine.request(
      'POST',
      '/batch-payments/credit-batches',
      batch({ company_name: 'ACMÉ PAYROLL' }, [entry({ individual_name: 'JOSÉ NUÑEZ' })]),
    );
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(expect.arrayContaining(['/company_name', '/entries/0/individual_name']));
    expect(r.body.errors.find((e: any) => e.field === '/company_name').message).toMatch(/NACHA/);
    expect(vendorCalls()).toHaveLength(0);
  });

  it.each([
    ['NUL', 'Jane\u0000Doe'],
    ['U+202E (right-to-left override)', 'Jane \u202Eeod'],
    ['U+2066 (left-to-right isolate)', 'Jane \u2066Doe'],
    ['C1 control U+0085', 'Jane\u0085Doe'],
  ])('a payment beneficiary name with %s: 400 naming the field, nothing sent', async (_what, name) => {
    const r = await engine.request(
      'POST',
      '/payments/payment-orders',
      withField(sepaOrder(), 'transferTransactionInformation.counterparty.name', name),
    );
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['/transferTransactionInformation/counterparty/name']);
    expect(r.body.errors[0].message).toMatch(/control, invisible or bidirectional formatting characters/);
    // the refused value is not echoed back
    expect(JSON.stringify(r.body)).not.toContain('Doe');
    expect(vendorCalls()).toHaveLength(0);
  });

  // the characters the attack run got past validation (issue 24, finding 3), and their kin
  const invisible: [string, string][] = [
    ['U+200B zero width space', '\u200b'],
    ['U+200E left-to-right mark', '\u200e'],
    ['U+200F right-to-left mark', '\u200f'],
    ['U+061C Arabic letter mark', '\u061c'],
    ['U+FEFF byte order mark', '\ufeff'],
    ['U+2028 line separator', '\u2028'],
    ['U+2029 paragraph separator', '\u2029'],
    ['U+00AD soft hyphen', '\u00ad'],
    ['U+200D zero width joiner', '\u200d'],
  ];

  it('Viktor "Pet\\u200brov" does not screen as a clean name: Petrov is a hit, the split name a 400 naming /person/lastName', async () => {
    const hit = await engine.request('POST', '/customer-screening', person('Viktor'));
    expect(hit.status).toBe(200);
    expect(hit.body.screeningResult).toBe('HIT');
    sv.server.clearRequests();
    const r = await engine.request('POST', '/customer-screening', person('Viktor', 'Pet\u200brov'));
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['/person/lastName']);
    expect(vendorCalls()).toHaveLength(0);
  });

  it.each(invisible)('a screening last name with %s: 400 naming the field, nothing sent', async (_what, ch) => {
    const r = await engine.request('POST', '/customer-screening', person('Viktor', `Pet${ch}rov`));
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['/person/lastName']);
    expect(vendorCalls()).toHaveLength(0);
  });

  it.each(invisible)('a payment remittance text with %s: 400 naming the field, nothing sent', async (_what, ch) => {
    const r = await engine.request(
      'POST',
      '/payments/payment-orders',
      withField(sepaOrder(), 'transferTransactionInformation.remittanceInformation', `Invoice${ch} 42`),
    );
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['/transferTransactionInformation/remittanceInformation']);
    expect(vendorCalls()).toHaveLength(0);
  });

  it('an emoji sequence joined by U+200D (a family) is refused like any zero width joiner', async () => {
    const r = await engine.request('POST', '/customer-screening', person('Viktor 👨\u200d👩\u200d👧'));
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['/person/firstName']);
    expect(vendorCalls()).toHaveLength(0);
  });

  it('a screening first name with U+202E: 400 naming the field, nothing sent', async () => {
    const r = await engine.request('POST', '/customer-screening', person('Vik\u202Etor'));
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['/person/firstName']);
    expect(vendorCalls()).toHaveLength(0);
  });

  it('a lone surrogate sent as raw JSON text "\\ud800": 400 naming the field, nothing sent', async () => {
    const raw = JSON.stringify(person('Viktor')).replace('"Petrov"', '"Petrov\\ud800"');
    expect(raw).toContain('\\ud800');
    const r = await engine.request('POST', '/customer-screening', raw);
    expect(r.status).toBe(400);
    expect(fieldsOf(r)).toEqual(['/person/lastName']);
    expect(vendorCalls()).toHaveLength(0);
  });

  it('a well-formed pair of surrogates (an emoji), accents and right-to-left script are text', async () => {
    const r = await engine.request('POST', '/customer-screening', person('Zoë 😀', 'עברית'));
    expect(r.status).toBe(200);
    expect(sv.server.requests().length).toBeGreaterThan(0);
  });
});
