// The screening connector over real sockets: the engine with the screenvendor simulator and the
// event hub sink (sandbox), every operation, every row of the screening error table, paging of
// risks, bad input never reaching the vendor, and the prefix of partyLifecycleBaseURL.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { rateLimitFault, type Screenvendor } from '../../sandbox/screenvendor/index.ts';

let engine: TestEngine;
let sv: Screenvendor;
let seq = 0;

const SET = {
  'screening-v2:screenvendor.alertRisks.pageSize': '2',
  'screening-v2:redeliveryDelay': '10',
  'screening-v2:http.client.response.timeout': '1500',
};

beforeAll(async () => {
  engine = await startTestEngine({ routes: ['routes/screenvendor-screening'], set: SET });
  sv = engine.sandbox.services.screenvendor as Screenvendor;
});
afterAll(() => engine?.close());
afterEach(() => {
  sv.server.clearFaults();
  sv.server.clearRequests();
  // a vendor healthy again for the next case: its breaker closed too (a breaker stays open for its delay)
  engine.services.http.guards.reset();
});

const vendorCalls = () => sv.server.requests().filter((r) => r.path.startsWith('/v2/'));
const person = (firstName: string, lastName: string, over: Record<string, unknown> = {}) => ({
  customerReference: `CUST-${Date.now()}-${++seq}`,
  person: {
    firstName,
    lastName,
    dateOfBirth: '1962-04-17',
    nationality: ['RU'],
    gender: 'MALE',
    identifications: [{ type: 'PASSPORT', number: 'X123', issuingCountry: 'RU' }],
  },
  ...over,
});
const screen = (body: unknown) => engine.request('POST', '/customer-screening', body);

describe('POST /customer-screening', () => {
  it('screens a person with hits: every risk of every alert, over several pages', async () => {
    const r = await screen(person('Viktor', 'Petrov'));
    expect(r.status).toBe(200);
    const b = r.body;
    expect(b.caseReference).toMatch(/^CUS-/);
    expect(b.caseIdentifier).toMatch(/^CASE-/);
    expect(b.screeningCaseReference).toEqual(expect.any(String));
    expect(b.screeningResult).toBe('HIT');
    expect(b.screeningAlerts).toHaveLength(6);
    const exact = b.screeningAlerts.find((a: any) => a.riskProfileIdentifier === 'PRF-VPETROV-01');
    expect(exact).toMatchObject({
      alertReference: expect.stringMatching(/^ALR-/),
      riskReference: expect.stringMatching(/^RSK-/),
      riskCategories: ['Sanctions', 'PEPs'],
      matchStrength: 'EXACT',
      disposition: 'NOT_REVIEWED',
      matchedPartyDetails: {
        matchedName: 'Viktor Petrov',
        yearOfBirth: 1962,
        sanctionsLists: ['Demo Consolidated Sanctions List'],
      },
    });
    const cats = b.screeningAlerts.flatMap((a: any) => a.riskCategories);
    for (const c of ['Sanctions', 'Warnings', 'Fitness and Probity', 'Watchlists', 'PEPs', 'Adverse Media'])
      expect(cats).toContain(c);
    expect(new Set(b.screeningAlerts.map((a: any) => a.matchStrength))).toEqual(new Set(['EXACT', 'FUZZY']));

    const calls = vendorCalls();
    const create = calls[0]!;
    expect(create.method).toBe('POST');
    expect(create.path).toBe('/v2/workflows/sync/create-and-screen');
    expect(create.query).toEqual({ last_sync_step: 'ALERTING' });
    expect(create.headers['x-api-key']).toBe('sandbox-screenvendor-api-key');
    expect(create.body).toEqual({
      customer: {
        external_identifier: b.customerReference as string,
        person: {
          first_name: 'Viktor',
          last_name: 'Petrov',
          date_of_birth: { year: 1962, month: 4, day: 17 },
          nationality: ['RU'],
          gender: 'male',
          personal_identification: [{ type: 'passport', number: 'X123', issuing_country: 'RU' }],
        },
      },
      configuration: { screening_configuration_identifier: 'default-kyc' },
    });
    // the fuzzy alert has 5 risks: pages 1, 2, 3 of size 2
    const fuzzyAlert = b.screeningAlerts.find((a: any) => a.matchStrength === 'FUZZY').alertReference;
    const pages = calls.filter((c) => c.path === `/v2/alerts/${fuzzyAlert}/risks`).map((c) => c.query);
    expect(pages).toEqual([1, 2, 3].map((n) => ({ page_number: String(n), page_size: '2' })));
    expect(b.screeningAlerts.filter((a: any) => a.alertReference === fuzzyAlert)).toHaveLength(5);
  });

  it('screens a person without hits: empty screeningAlerts, no risk reads', async () => {
    const r = await screen(person('John', 'Smith'));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ screeningResult: 'NO_HIT', screeningAlerts: [] });
    expect(vendorCalls().map((c) => c.path)).toEqual(['/v2/workflows/sync/create-and-screen']);
  });

  it('turns monitoring on in the same call', async () => {
    const r = await screen(person('Maria', 'Moreau', { identityProofingTaskDescription: { monitoringFlag: 'Y' } }));
    expect(r.status).toBe(200);
    expect(r.body.monitoringFlag).toBe('Y');
    expect(r.body.screeningAlerts).toHaveLength(1);
    expect(r.body.screeningAlerts[0]).toMatchObject({ riskCategories: ['Adverse Media'], matchStrength: 'EXACT' });
    expect(vendorCalls()[0]!.body).toMatchObject({ monitoring: { entity_screening: { enabled: true } } });
    expect(sv.customers.get(r.body.caseReference)!.monitoring.enabled).toBe(true);
  });

  it('rejects KYB (business) screening with a 400 and never calls the vendor', async () => {
    for (const body of [
      { customerReference: 'B-1', subjectType: 'COMPANY', company: { name: 'Demo Ltd' } },
      { customerReference: 'B-2', company: { name: 'Demo Ltd' } },
    ]) {
      const r = await screen(body);
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body.code).toBe('GC025');
      expect(r.body.detail).toMatch(/KYB .*unsupported/);
      expect(r.body.errors[0].field).toBe('/subjectType');
    }
    expect(vendorCalls()).toHaveLength(0);
  });

  it('answers bad input with a 400 naming the field and never calls the vendor', async () => {
    const cases: [unknown, string][] = [
      [{ customerReference: 'X' }, '/person'],
      [{ customerReference: 'X', person: { firstName: 'A' } }, '/person/lastName'],
      [
        person('A', 'B', { identityProofingTaskDescription: { monitoringFlag: 'YES' } }),
        '/identityProofingTaskDescription/monitoringFlag',
      ],
      [{ customerReference: 'X', person: { lastName: 'B', nationality: ['Russia'] } }, '/person/nationality/0'],
      [{ customerReference: 'X', person: { lastName: 'B', dateOfBirth: '17.04.1962' } }, '/person/dateOfBirth'],
      [{ person: { lastName: 'B' } }, '/customerReference'],
    ];
    for (const [body, field] of cases) {
      const r = await screen(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe('GC025');
      expect(r.body.errors.map((e: any) => e.field)).toContain(field);
    }
    expect(vendorCalls()).toHaveLength(0);
  });

  it('maps a workflow that ended ERRORED to GC027', async () => {
    sv.server.addFault({
      path: 'create-and-screen',
      status: 200,
      body: {
        workflow_instance_identifier: 'w',
        workflow_type: 'create-and-screen',
        status: 'ERRORED',
        step_details: {},
      },
      times: 1,
    });
    const r = await screen(person('John', 'Smith'));
    expect(r.status).toBe(502);
    expect(r.body.code).toBe('GC027');
  });
});

describe('POST /customer-screening/config-monitoring', () => {
  let caseReference: string;
  beforeAll(async () => {
    caseReference = (await screen(person('Ahmed', 'Karimov'))).body.caseReference;
    sv.server.clearRequests();
  });

  it.each([
    ['Y', true],
    ['N', false],
    [true, true],
    [false, false],
  ])('monitoringFlag %s sets monitoring %s', async (flag, enabled) => {
    const r = await engine.request('POST', '/customer-screening/config-monitoring', {
      caseReference,
      identityProofingTaskDescription: { monitoringFlag: flag, monitoringProfileId: 'MP-DAILY' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      caseReference,
      monitoringFlag: enabled ? 'Y' : 'N',
      monitoringEnabled: enabled,
      monitoringProfileId: 'MP-DAILY',
    });
    const call = vendorCalls()[0]!;
    expect(call.method).toBe('PATCH');
    expect(call.path).toBe(`/v2/customers/${caseReference}/monitor`);
    expect(call.body).toEqual({ entity_screening: { enabled }, monitoring_profile_identifier: 'MP-DAILY' });
    expect(sv.customers.get(caseReference)!.monitoring.enabled).toBe(enabled);
    sv.server.clearRequests();
  });

  it('rejects any other flag with a 400 naming the field, no vendor call', async () => {
    for (const flag of ['yes', 'true', 1, null, 'y']) {
      const r = await engine.request('POST', '/customer-screening/config-monitoring', {
        caseReference,
        identityProofingTaskDescription: { monitoringFlag: flag },
      });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('/identityProofingTaskDescription/monitoringFlag');
    }
    const r = await engine.request('POST', '/customer-screening/config-monitoring', {
      identityProofingTaskDescription: { monitoringFlag: 'Y' },
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('/caseReference');
    expect(vendorCalls()).toHaveLength(0);
  });

  it('an unknown party is GC054', async () => {
    const r = await engine.request('POST', '/customer-screening/config-monitoring', {
      caseReference: 'CUS-999999',
      identityProofingTaskDescription: { monitoringFlag: 'Y' },
    });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('GC054');
  });
});

describe('dispositions and suppression', () => {
  let caseReference: string;
  let alert: any;
  beforeAll(async () => {
    const r = await screen(person('Ahmed', 'Karimov'));
    caseReference = r.body.caseReference;
    alert = r.body.screeningAlerts[0];
    sv.server.clearRequests();
  });

  it.each(['IN_REVIEW', 'TRUE_POSITIVE', 'NOT_REVIEWED', 'FALSE_POSITIVE'])(
    'records %s as the vendor decision',
    async (disposition) => {
      const r = await engine.request('POST', '/screening-assessment/match-profiles/dispositions', {
        disposition,
        alertReference: alert.alertReference,
        riskIdentifier: alert.riskReference,
      });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        status: 'ACCEPTED',
        disposition,
        decision: disposition,
        alertReference: alert.alertReference,
        riskIdentifier: alert.riskReference,
      });
      const call = vendorCalls()[0]!;
      expect(call.path).toBe(`/v2/alerts/${alert.alertReference}/risks/${alert.riskReference}/decision`);
      expect(call.body).toEqual({ decision: disposition });
      expect(sv.alerts.get(alert.alertReference)!.risks[0]!.decision).toBe(disposition);
      sv.server.clearRequests();
    },
  );

  it('rejects a bad disposition (400) and maps an unknown alert to GC054', async () => {
    const bad = await engine.request('POST', '/screening-assessment/match-profiles/dispositions', {
      disposition: 'DISMISSED',
      alertReference: 'A',
      riskIdentifier: 'R',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ field: '/disposition' });
    expect(vendorCalls()).toHaveLength(0);
    const nf = await engine.request('POST', '/screening-assessment/match-profiles/dispositions', {
      disposition: 'IN_REVIEW',
      alertReference: 'ALR-999999',
      riskIdentifier: 'RSK-1',
    });
    expect(nf.status).toBe(404);
    expect(nf.body.code).toBe('GC054');
  });

  it('mutes a profile after a FALSE_POSITIVE disposition; a repeat is GC003', async () => {
    const body = {
      caseReference,
      riskIdentifier: alert.riskReference,
      riskProfileIdentifier: alert.riskProfileIdentifier,
      caseReferenceId: 'CASE-x',
      suppressionReason: 'same name, different date of birth',
      customFields: { analyst: 'a.b' },
    };
    const r = await engine.request('POST', '/screening-assessment/match-profiles/suppression', body);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      status: 'MUTED',
      suppressionIdentifier: expect.stringMatching(/^MUT-/),
      caseReference,
      riskProfileIdentifier: alert.riskProfileIdentifier,
    });
    expect(vendorCalls()[0]!.body).toEqual({
      profile_identifier: alert.riskProfileIdentifier,
      customer_identifier: caseReference,
      risk_identifier: alert.riskReference,
      case_identifier: 'CASE-x',
      reason: 'same name, different date of birth',
      custom_fields: { analyst: 'a.b' },
    });
    const again = await engine.request('POST', '/screening-assessment/match-profiles/suppression', body);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'GC003', title: 'Conflict' });
  });

  it('requires caseReference, riskIdentifier and riskProfileIdentifier', async () => {
    const r = await engine.request('POST', '/screening-assessment/match-profiles/suppression', {
      suppressionReason: 'x',
    });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: any) => e.field).sort()).toEqual([
      '/caseReference',
      '/riskIdentifier',
      '/riskProfileIdentifier',
    ]);
    expect(vendorCalls()).toHaveLength(0);
  });
});

describe('the screening error table', () => {
  const vendorProblem = (status: number, title: string, detail?: string) => ({
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: { identifier: 'err-1', status, timestamp: new Date().toISOString(), title, ...(detail ? { detail } : {}) },
  });
  it.each([
    [401, 'Unauthorized', 401, 'GC002'],
    [409, 'Conflict', 409, 'GC003'],
    [403, 'Forbidden', 403, 'GC004'],
    [400, 'Invalid workflow_type: company-screen', 400, 'GC025'],
    [422, 'Validation error', 400, 'GC025'],
    [500, 'Generic Error', 502, 'GC027'],
    [404, 'Not found', 404, 'GC054'],
    [418, 'Something new', 502, 'GC027'],
    [503, 'Service Unavailable', 502, 'GC027'],
  ])('vendor %i %s -> %i %s', async (vs, title, status, code) => {
    sv.server.addFault({ path: 'create-and-screen', ...vendorProblem(vs, title, 'vendor says no') });
    const r = await screen(person('John', 'Smith'));
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe(code);
    expect(r.body.correlationId).toEqual(expect.any(String));
    expect(JSON.stringify(r.body)).not.toContain('sandbox-screenvendor-api-key');
  });

  it('the same table applies to every vendor call (risks, decision, mutes, monitor)', async () => {
    const hit = await screen(person('Maria', 'Moreau'));
    const a = hit.body.screeningAlerts[0];
    sv.server.addFault({ path: '/risks$', ...vendorProblem(403, 'Forbidden') });
    expect((await screen(person('Maria', 'Moreau'))).body.code).toBe('GC004');
    sv.server.clearFaults();
    sv.server.addFault({ path: '/decision$', ...vendorProblem(400, 'Validation error', 'decision: bad') });
    const d = await engine.request('POST', '/screening-assessment/match-profiles/dispositions', {
      disposition: 'IN_REVIEW',
      alertReference: a.alertReference,
      riskIdentifier: a.riskReference,
    });
    expect(d.body).toMatchObject({ status: 400, code: 'GC025' });
    expect(d.body.detail).toContain('decision: bad');
    sv.server.addFault({ path: '/mutes$', ...vendorProblem(401, 'Unauthorized') });
    const m = await engine.request('POST', '/screening-assessment/match-profiles/suppression', {
      caseReference: hit.body.caseReference,
      riskIdentifier: a.riskReference,
      riskProfileIdentifier: a.riskProfileIdentifier,
    });
    expect(m.body).toMatchObject({ status: 401, code: 'GC002' });
    sv.server.addFault({ path: '/monitor$', ...vendorProblem(500, 'Generic Error') });
    const c = await engine.request('POST', '/customer-screening/config-monitoring', {
      caseReference: hit.body.caseReference,
      identityProofingTaskDescription: { monitoringFlag: 'N' },
    });
    expect(c.body).toMatchObject({ status: 502, code: 'GC027', title: 'Generic Error' });
  });

  it("429 'API rate limit exceeded' is GC031 with Retry-After from Ratelimit-Reset and the vendor message", async () => {
    sv.server.addFault({ path: 'create-and-screen', ...rateLimitFault(42, 10) });
    const r = await screen(person('John', 'Smith'));
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({
      code: 'GC031',
      title: 'Too many requests',
      vendorMessage: 'API rate limit exceeded',
    });
    expect(r.body.detail).toContain('API rate limit exceeded');
    expect(r.headers.get('retry-after')).toBe('42');
    // a 429 means the vendor did not process the POST: retried maximumRedeliveries (3) times
    expect(vendorCalls()).toHaveLength(4);
  });

  it('a 429 followed by success is retried and answered 200', async () => {
    sv.server.addFault({ path: '/risks$', ...rateLimitFault(1, 1) });
    const r = await screen(person('Maria', 'Moreau'));
    expect(r.status).toBe(200);
    expect(vendorCalls().filter((c) => c.path.endsWith('/risks'))).toHaveLength(2);
  });

  it('a vendor timeout is GC027 (504) and the POST is not repeated', async () => {
    sv.server.addFault({ path: 'create-and-screen', delayMs: 2500, times: 1 });
    const r = await screen(person('John', 'Smith'));
    expect(r.status).toBe(504);
    expect(r.body.code).toBe('GC027');
    expect(vendorCalls()).toHaveLength(1);
  });

  it('a list of risks that never ends stops at maxPages with GC027', async () => {
    const e2 = await startTestEngine({
      routes: ['routes/screenvendor-screening'],
      set: { 'screening-v2:screenvendor.alertRisks.maxPages': '3' },
    });
    try {
      const s2 = e2.sandbox.services.screenvendor as Screenvendor;
      s2.server.addFault({
        path: '/risks$',
        status: 200,
        body: { risks: [], page_number: 1, page_size: 2, next: '/v2/alerts/x/risks?page_number=2' },
      });
      const r = await e2.request('POST', '/customer-screening', person('Maria', 'Moreau'));
      expect(r.status).toBe(502);
      expect(r.body.code).toBe('GC027');
      expect(s2.server.requests().filter((c) => c.path.endsWith('/risks'))).toHaveLength(3);
    } finally {
      await e2.close();
    }
  });
});

describe('another deployment: partyLifecycleBaseURL and a wrong API key', () => {
  let e2: TestEngine;
  beforeAll(async () => {
    e2 = await startTestEngine({
      routes: ['routes/screenvendor-screening'],
      set: { 'screening-v2:partyLifecycleBaseURL': '/party-lifecycle', 'screenvendor-api-key': 'not-the-key' },
    });
  });
  afterAll(() => e2?.close());

  it('serves the four operations under the prefix', async () => {
    expect((await e2.request('POST', '/customer-screening', person('John', 'Smith'))).status).toBe(404);
    for (const p of [
      '/customer-screening/config-monitoring',
      '/screening-assessment/match-profiles/dispositions',
      '/screening-assessment/match-profiles/suppression',
    ]) {
      const r = await e2.request('POST', `/party-lifecycle${p}`, {});
      expect(r.status, p).toBe(400);
    }
    const paths = Object.keys((await e2.request('GET', '/openapi.json')).body.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/party-lifecycle/customer-screening',
        '/party-lifecycle/customer-screening/config-monitoring',
        '/webhooks/screening',
      ]),
    );
  });

  it('the vendor refusing the API key is GC002, and the key never shows', async () => {
    const r = await e2.request('POST', '/party-lifecycle/customer-screening', person('John', 'Smith'));
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 'GC002', title: 'Unauthorized' });
    expect(JSON.stringify(r.body)).not.toContain('not-the-key');
  });
});
