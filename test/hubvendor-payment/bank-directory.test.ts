// Bank directory by BIC, IBAN and national clearing code; rule 1 (IBAN validation); path
// injection; hubvendor.disablePagination; over real sockets against the hubvendor simulator.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { BEARER, ROUTES } from './fixtures.ts';

let engine: TestEngine;
let noPaging: TestEngine;

beforeAll(async () => {
  [engine, noPaging] = await Promise.all([
    startTestEngine({ routes: ROUTES, set: { redeliveryDelay: '20', maximumRedeliveries: '2' } }),
    startTestEngine({ routes: ROUTES, set: { 'hubvendor.disablePagination': 'true' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([engine?.close(), noPaging?.close()]);
});
afterEach(() => {
  for (const e of [engine, noPaging]) {
    e.sandbox.hubvendor.server.clearFaults();
    e.sandbox.hubvendor.server.clearRequests();
    // a vendor healthy again for the next case: its breaker closed too (a breaker stays open for its delay)
    e.services.http.guards.reset();
  }
});

const vendorCalls = (e = engine) => e.sandbox.hubvendor.server.requests();
const lookup = (body: unknown, headers?: Record<string, string>, e = engine) =>
  e.request('POST', '/payments/bank-directory', body, headers);

describe('directory lookups', () => {
  it('by BIC11 at searchBankDirectoryByBICApiUri, with pagination', async () => {
    const r = await lookup({ identificationType: 'BIC', identification: 'DEUTDEFFXXX' }, { authorization: BEARER });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      bankDirectorySource: 'BANK-DIRECTORY',
      records: [
        {
          bic: 'DEUTDEFFXXX',
          bic8: 'DEUTDEFF',
          branchCode: '50070010',
          institutionName: 'Deutsche Bank AG',
          branchName: 'Frankfurt am Main',
          city: 'Frankfurt am Main',
          countryCode: 'DE',
          nationalIds: [{ type: 'DEBLZ', id: '50070010' }],
        },
      ],
      pagination: { pageSize: 25, pageStart: 1, totalSize: 1 },
    });
    const [call] = vendorCalls();
    expect(call.method).toBe('GET');
    expect(call.path).toBe('/v1/reference/bankDirectory/bics');
    expect(call.query).toEqual({ bic: 'DEUTDEFFXXX' });
    expect(call.headers.authorization).toBe(BEARER);
  });

  it('by BIC8: every branch, paged by pageSize and pageStart', async () => {
    const r = await lookup({ identificationType: 'BIC', identification: 'cobadeff', pageSize: 1, pageStart: 2 });
    expect(r.status).toBe(200);
    expect(r.body.records).toHaveLength(1);
    expect(r.body.records[0].city).toBe('Köln');
    expect(r.body.pagination).toEqual({ pageSize: 1, pageStart: 2, totalSize: 2 });
    expect(vendorCalls()[0].query).toEqual({ bic: 'COBADEFF', page_size: '1', page_start: '2' });
  });

  it('by IBAN at searchBankDirectoryByIBANApiUri (printed form accepted)', async () => {
    const r = await lookup({
      bankDirectorySource: 'BANK-DIRECTORY',
      identificationType: 'IBAN',
      identification: 'GB29 NWBK 6016 1331 9268 19',
    });
    expect(r.status).toBe(200);
    expect(r.body.records[0]).toMatchObject({ bic: 'NWBKGB2LXXX', branchCode: '601613' });
    const [call] = vendorCalls();
    expect(call.path).toBe('/v1/reference/bankDirectory/ibans');
    expect(call.query).toEqual({ iban: 'GB29NWBK60161331926819' });
  });

  it('by national clearing code at searchBankDirectoryByBankBranchCodeApiUri, narrowed by country', async () => {
    const r = await lookup({ identificationType: 'BANK_BRANCH_CODE', identification: '021000021', countryCode: 'US' });
    expect(r.status).toBe(200);
    expect(r.body.records[0]).toMatchObject({ bic: 'CHASUS33XXX', nationalIds: [{ type: 'USABA', id: '021000021' }] });
    const [call] = vendorCalls();
    expect(call.path).toBe('/v1/reference/bankDirectory/nationalClearingCodes');
    expect(call.query).toEqual({ branchCode: '021000021', countryCode: 'US' });
  });

  it('a bank the hub does not know is 404 GC054', async () => {
    const r = await lookup({ identificationType: 'BIC', identification: 'BOFAUS3NXXX' });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('GC054');
  });

  it('IBAN-DIRECTORY with a BIC is a normal BIC lookup (rule 1 needs identificationType IBAN)', async () => {
    const r = await lookup({
      bankDirectorySource: 'IBAN-DIRECTORY',
      identificationType: 'BIC',
      identification: 'INGBNL2AXXX',
    });
    expect(r.status).toBe(200);
    expect(r.body.records[0].institutionName).toBe('ING Bank N.V.');
    expect(vendorCalls()[0].path).toBe('/v1/reference/bankDirectory/bics');
  });
});

describe('rule 1: IBAN-DIRECTORY + IBAN validates at ibanValidationApiUri with {IBAN}', () => {
  it('answers the validation of a valid IBAN with its bank', async () => {
    const r = await lookup(
      {
        bankDirectorySource: 'IBAN-DIRECTORY',
        identificationType: 'IBAN',
        identification: 'de89 3704 0044 0532 0130 00',
      },
      { authorization: BEARER },
    );
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      bankDirectorySource: 'IBAN-DIRECTORY',
      ibanValidation: {
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
      },
    });
    const calls = vendorCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('GET');
    expect(calls[0].path).toBe('/v1/reference/ibans/DE89370400440532013000/validate');
    expect(calls[0].headers.authorization).toBe(BEARER);
  });

  it('leaves the mod-97 verdict to the hub: a wrong check digit is isValid false', async () => {
    const r = await lookup({
      bankDirectorySource: 'IBAN-DIRECTORY',
      identificationType: 'IBAN',
      identification: 'DE88370400440532013000',
    });
    expect(r.status).toBe(200);
    expect(r.body.ibanValidation).toMatchObject({ isValid: false, validationErrors: ['WrongIBANChecksum'] });
  });

  it('a path injection attempt is refused before any vendor call', async () => {
    for (const identification of [
      'DE89/../../order/paymentOrders',
      'DE89370400440532013000/../x',
      '../../v1/forex',
      'DE89%2F..%2F',
      'DE8937040044?x=1',
      'DE89370400440532013000#x',
    ]) {
      const r = await lookup({ bankDirectorySource: 'IBAN-DIRECTORY', identificationType: 'IBAN', identification });
      expect(r.status, identification).toBe(400);
      expect(r.body.errors[0].field).toBe('/identification');
    }
    expect(vendorCalls()).toHaveLength(0);
  });

  it('query values are encoded, never spliced: a BIC or clearing code with & or = is refused', async () => {
    const a = await lookup({ identificationType: 'BIC', identification: 'DEUTDEFF&bic=X' });
    const b = await lookup({ identificationType: 'BANK_BRANCH_CODE', identification: '1234&countryCode=DE' });
    expect([a.status, b.status]).toEqual([400, 400]);
    expect(vendorCalls()).toHaveLength(0);
  });
});

describe('input validation', () => {
  const bad: [string, unknown, string][] = [
    ['no identificationType', { identification: 'DEUTDEFFXXX' }, '/identificationType'],
    ['no identification', { identificationType: 'BIC' }, '/identification'],
    [
      'an unknown identificationType',
      { identificationType: 'SWIFT', identification: 'DEUTDEFFXXX' },
      '/identificationType',
    ],
    [
      'an unknown source',
      { bankDirectorySource: 'SWIFT-REF', identificationType: 'BIC', identification: 'DEUTDEFFXXX' },
      '/bankDirectorySource',
    ],
    ['a bad BIC', { identificationType: 'BIC', identification: 'DEUT' }, '/identification'],
    [
      'an IBAN failing mod-97 for a directory lookup',
      { identificationType: 'IBAN', identification: 'DE88370400440532013000' },
      '/identification',
    ],
    [
      'a bad country code',
      { identificationType: 'BANK_BRANCH_CODE', identification: '50070010', countryCode: 'Germany' },
      '/countryCode',
    ],
    ['a page size over 100', { identificationType: 'BIC', identification: 'DEUTDEFF', pageSize: 500 }, '/pageSize'],
  ];
  for (const [name, body, field] of bad) {
    it(`${name}: 400 naming ${field}, no vendor call`, async () => {
      const r = await lookup(body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('GC025');
      expect(r.body.errors.map((e: any) => e.field)).toContain(field);
      expect(vendorCalls()).toHaveLength(0);
    });
  }
});

describe('hubvendor.disablePagination', () => {
  it('true: a single-record answer carries no pagination', async () => {
    const r = await lookup({ identificationType: 'BIC', identification: 'DEUTDEFFXXX' }, undefined, noPaging);
    expect(r.status).toBe(200);
    expect(r.body.records).toHaveLength(1);
    expect(r.body).not.toHaveProperty('pagination');
  });

  it('true: a multi-record answer keeps it', async () => {
    const r = await lookup({ identificationType: 'BIC', identification: 'COBADEFF' }, undefined, noPaging);
    expect(r.body.records).toHaveLength(2);
    expect(r.body.pagination).toEqual({ pageSize: 25, pageStart: 1, totalSize: 2 });
  });
});

describe('vendor faults', () => {
  it('a lookup is a GET, so connection resets are retried, then mapped to 502 GC027', async () => {
    engine.sandbox.hubvendor.server.addFault({ path: '^/v1/reference/', reset: true, times: 10 });
    const r = await lookup({ identificationType: 'BIC', identification: 'DEUTDEFFXXX' });
    expect(r.status).toBe(502);
    expect(r.body).toMatchObject({ code: 'GC027', title: 'Generic Error' });
    expect(r.body.detail).toMatch(/could not be reached/);
    expect(vendorCalls()).toHaveLength(3);
  });

  it('recovers when a retry succeeds', async () => {
    engine.sandbox.hubvendor.server.addFault({ path: '^/v1/reference/', status: 502, times: 2 });
    const r = await lookup({ identificationType: 'BIC', identification: 'DEUTDEFFXXX' });
    expect(r.status).toBe(200);
    expect(vendorCalls()).toHaveLength(3);
  });
});
