// Inbound screenvendor webhooks over real sockets: the simulator signs and delivers them to the
// engine, which verifies, deduplicates, reads every alert's risks and publishes one monitoring
// event to the event hub sink before answering 2xx.

import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { sign } from '../../engine/outbound/webhook-signature.ts';
import { stableId } from '../../engine/core/functions.ts';
import type { Screenvendor } from '../../sandbox/screenvendor/index.ts';

let engine: TestEngine;
let sv: Screenvendor;
let seq = 0;
const SECRET = parse(readFileSync('values/environments/sandbox.yaml', 'utf8')).keys[
  'screenvendor-webhook-secret'
] as string;
const TYPE = 'com.platform.screening.event.spec.v1.ScreeningMonitoringEvent';

beforeAll(async () => {
  engine = await startTestEngine({
    routes: ['routes/screenvendor-screening'],
    set: { 'screening-v2:screenvendor.alertRisks.pageSize': '2', 'screening-v2:redelivery.maximumRetries': '0' },
  });
  sv = engine.sandbox.services.screenvendor as Screenvendor;
  sv.setWebhookUrl(`${engine.url}/webhooks/screening`);
});
afterAll(() => engine?.close());
afterEach(() => {
  sv.server.clearFaults();
  sv.server.clearRequests();
  engine.sandbox.eventhub.server.clearFaults();
});

const events = () => engine.sandbox.eventhub.events({ type: TYPE });
async function screened(first: string, last: string, monitoring = true): Promise<string> {
  const r = await engine.request('POST', '/customer-screening', {
    customerReference: `WH-${Date.now()}-${++seq}`,
    person: { firstName: first, lastName: last },
    identityProofingTaskDescription: { monitoringFlag: monitoring ? 'Y' : 'N' },
  });
  expect(r.status).toBe(200);
  sv.server.clearRequests();
  return r.body.caseReference;
}

function signed(body: unknown, over: { id?: string; ts?: number; secret?: string } = {}) {
  const raw = JSON.stringify(body);
  const id = over.id ?? `msg_test_${Date.now()}_${++seq}`;
  const ts = over.ts ?? Math.floor(Date.now() / 1000);
  return {
    raw,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': sign(over.secret ?? SECRET, id, ts, raw),
    },
  };
}

describe('POST /webhooks/screening', () => {
  it('the simulator signs with the sandbox secret of values/environments/sandbox.yaml', () => {
    expect(sv.webhookSecret).toBe(SECRET);
  });

  it('CASE_ALERT_LIST_UPDATED: reads every page of every alert and publishes the event with riskProfile', async () => {
    const customer = await screened('Viktor', 'Petrov');
    const t = await sv.triggerListUpdate(customer);
    expect(t.delivered).toBe(true);
    expect(t.deliveries[0]).toMatchObject({
      status: 200,
      answer: { status: 'published', eventType: 'CASE_ALERT_LIST_UPDATED' },
    });
    const [e] = events().filter((x) => x.id === stableId('screenvendor-webhook', t.webhookId));
    expect(e).toBeDefined();
    expect(e).toMatchObject({
      specversion: '1.0',
      type: TYPE,
      source: 'com.platform.screening',
      topic: 'screening-monitoring',
      dataversion: '1.0.0',
      subject: t.payload.case_identifier,
      datacontenttype: 'application/json',
    });
    const data = e!.data as any;
    expect(data).toMatchObject({
      eventType: 'CASE_ALERT_LIST_UPDATED',
      caseReference: customer,
      caseIdentifier: t.payload.case_identifier,
    });
    // 6 demo hits + the newly listed sanction
    expect(data.screeningAlerts).toHaveLength(7);
    const listed = data.screeningAlerts.find((a: any) => a.riskProfileIdentifier.startsWith('PRF-LISTED-'));
    expect(listed).toMatchObject({ riskCategories: ['Sanctions'], matchStrength: 'EXACT' });
    expect(data.vendorSpecificFieldsAml.screenvendor.riskProfile).toHaveLength(7);
    expect(data.vendorSpecificFieldsAml.screenvendor.riskProfile[0]).toMatchObject({
      identifier: expect.any(String),
      match_types: expect.any(Array),
      risk_indicators: expect.any(Object),
      alert_identifier: expect.any(String),
      risk_identifier: expect.any(String),
    });
    // three alerts, the fuzzy one over three pages of 2
    const riskReads = sv.server.requests().filter((r) => r.path.endsWith('/risks'));
    expect(riskReads.length).toBe(1 + 3 + 1);
    expect(JSON.stringify(e)).not.toContain('sandbox-screenvendor-api-key');
  });

  it('CASE_CREATED with no alerts publishes an event with empty screeningAlerts and no riskProfile', async () => {
    const customer = await screened('John', 'Smith');
    const t = await sv.triggerCaseCreated(customer);
    expect(t.delivered).toBe(true);
    const e = events().find((x) => x.id === stableId('screenvendor-webhook', t.webhookId))!;
    expect(e.data).toEqual({
      eventType: 'CASE_CREATED',
      caseReference: customer,
      caseIdentifier: t.payload.case_identifier,
      customerReference: t.payload.customer.external_identifier,
      customerVersion: 1,
      screeningAlerts: [],
    });
    expect(sv.server.requests().filter((r) => r.path.startsWith('/v2/'))).toHaveLength(0);
  });

  it('a replayed webhook (same webhook-id) is answered 2xx and not published again', async () => {
    const customer = await screened('Maria', 'Moreau');
    const t = await sv.triggerListUpdate(customer);
    expect(t.delivered).toBe(true);
    sv.server.clearRequests();
    const again = await sv.redeliver(t.webhookId);
    expect(again.deliveries[0]).toMatchObject({ status: 200, answer: { status: 'duplicate' } });
    expect(events().filter((x) => x.id === stableId('screenvendor-webhook', t.webhookId))).toHaveLength(1);
    expect(sv.server.requests()).toHaveLength(0);
  });

  it('the event hub down: the webhook is answered 5xx, the redelivery publishes once', async () => {
    const customer = await screened('Ahmed', 'Karimov');
    engine.sandbox.eventhub.server.addFault({ path: '^/events$', method: 'POST', status: 503, times: 1 });
    const t = await sv.triggerListUpdate(customer, { attempts: 3, retryDelayMs: 50 });
    expect(t.deliveries.map((d) => d.status)).toEqual([503, 200]);
    expect(t.deliveries[0]!.answer).toMatchObject({ status: 503, code: 'GC027' });
    expect(events().filter((x) => x.id === stableId('screenvendor-webhook', t.webhookId))).toHaveLength(1);
  });

  it('rejects bad and stale signatures with 401, publishing nothing and calling no vendor', async () => {
    const customer = await screened('Maria', 'Moreau');
    const body = {
      api_version: 'v2',
      webhook_type: 'CASE_ALERT_LIST_UPDATED',
      case_identifier: 'CASE-1',
      customer: { identifier: customer },
      alert_identifiers: ['ALR-000001'],
    };
    const before = events().length;
    const good = signed(body);
    const variants: [string, Record<string, string>, string][] = [
      ['wrong secret', signed(body, { secret: 'whsec_d3Jvbmc=' }).headers, good.raw],
      ['stale timestamp', signed(body, { ts: Math.floor(Date.now() / 1000) - 600 }).headers, good.raw],
      ['future timestamp', signed(body, { ts: Math.floor(Date.now() / 1000) + 600 }).headers, good.raw],
      ['tampered body', good.headers, good.raw.replace('CASE-1', 'CASE-2')],
      ['no signature', { 'webhook-id': 'x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) }, good.raw],
      ['no headers', {}, good.raw],
    ];
    for (const [what, headers, raw] of variants) {
      const r = await engine.request('POST', '/webhooks/screening', raw, {
        'content-type': 'application/json',
        ...headers,
      });
      expect(r.status, what).toBe(401);
      expect(r.body.code, what).toBe('GC002');
    }
    expect(events().length).toBe(before);
    expect(sv.server.requests()).toHaveLength(0);
  });

  it('acknowledges other webhook types without publishing; a malformed payload is a 400', async () => {
    const before = events().length;
    const other = signed({
      api_version: 'v2',
      webhook_type: 'CUSTOMER_UPDATED',
      case_identifier: 'CASE-1',
      customer: { identifier: 'CUS-1' },
    });
    const r = await engine.request('POST', '/webhooks/screening', other.raw, {
      'content-type': 'application/json',
      ...other.headers,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ignored', webhookType: 'CUSTOMER_UPDATED' });
    const bad = signed({ api_version: 'v2', webhook_type: 'CASE_CREATED' });
    const b = await engine.request('POST', '/webhooks/screening', bad.raw, {
      'content-type': 'application/json',
      ...bad.headers,
    });
    expect(b.status).toBe(400);
    expect(b.body.errors.map((e: any) => e.field)).toEqual(expect.arrayContaining(['/case_identifier', '/customer']));
    expect(events().length).toBe(before);
  });

  it('a vendor fault while reading risks answers 5xx, nothing is published, the redelivery succeeds', async () => {
    const customer = await screened('Maria', 'Moreau');
    sv.server.addFault({
      path: '/risks$',
      status: 500,
      body: { identifier: 'e', status: 500, timestamp: new Date().toISOString(), title: 'Generic Error' },
      times: 1,
    });
    const t = await sv.triggerListUpdate(customer, { attempts: 2, retryDelayMs: 50 });
    expect(t.deliveries.map((d) => d.status)).toEqual([502, 200]);
    expect(t.deliveries[0]!.answer).toMatchObject({ code: 'GC027' });
    expect(events().filter((x) => x.id === stableId('screenvendor-webhook', t.webhookId))).toHaveLength(1);
  });

  it('a list update needs monitoring on (simulator rule)', async () => {
    const customer = await screened('Maria', 'Moreau', false);
    await expect(sv.triggerListUpdate(customer)).rejects.toThrow(/Conflict/);
    const r = await fetch(`${sv.url}/__screenvendor/trigger/list-update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customer_identifier: customer }),
    });
    expect(r.status).toBe(409);
  });
});
