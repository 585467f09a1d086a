// The screenvendor simulator alone over real sockets: API key, name-dependent results, paging,
// decisions, mutes (409 on a repeat), monitoring, problem-JSON errors, signed webhooks.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startScreenvendor,
  SANDBOX_API_KEY,
  SANDBOX_WEBHOOK_SECRET,
  type Screenvendor,
} from '../../sandbox/screenvendor/index.ts';
import { verifySignature } from '../../engine/outbound/webhook-signature.ts';

let sv: Screenvendor;
let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, any>; raw: Buffer }[] = [];
/** statuses the receiver answers with, in order; 200 once used up */
const answers: number[] = [];

beforeAll(async () => {
  sv = await startScreenvendor();
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(answers.shift() ?? 200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await sv?.close();
  await new Promise((r) => receiver?.close(r));
});

async function call(method: string, path: string, body?: unknown, key: string | null = SANDBOX_API_KEY) {
  const res = await fetch(sv.url + path, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(key ? { 'x-api-key': key } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

const screen = (person: Record<string, unknown>, ext = `E-${Math.random()}`, monitoring?: boolean) =>
  call('POST', '/v2/workflows/sync/create-and-screen?last_sync_step=ALERTING', {
    customer: { external_identifier: ext, person },
    configuration: { screening_configuration_identifier: 'default-kyc' },
    ...(monitoring !== undefined ? { monitoring: { entity_screening: { enabled: monitoring } } } : {}),
  });

describe('screenvendor simulator', () => {
  it('needs the API key: Unauthorized problem otherwise', async () => {
    const r = await screen({ last_name: 'Smith' }).then(() => call('GET', '/v2/alerts/x/risks', undefined, 'wrong'));
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({
      status: 401,
      title: 'Unauthorized',
      identifier: expect.any(String),
      timestamp: expect.any(String),
    });
    expect(r.headers.get('content-type')).toContain('application/problem+json');
  });

  it('gives hits for names on the demo list and none for others', async () => {
    const hit = await screen({ first_name: 'Viktor', last_name: 'Petrov' });
    expect(hit.status).toBe(200);
    expect(hit.json.step_details['customer-screening'].screening_result).toBe('HAS_PROFILES');
    expect(hit.json.step_details.alerting.alerts).toHaveLength(2);
    const none = await screen({ full_name: 'John Smith' });
    expect(none.json.step_details['customer-screening'].screening_result).toBe('NO_PROFILES');
    expect(none.json.step_details.alerting.alerts).toEqual([]);
    expect(none.json.step_details['case-creation'].case_identifier).toMatch(/^CASE-/);
  });

  it('pages risks with page_number, page_size and next', async () => {
    const hit = await screen({ first_name: 'Viktor', last_name: 'Petrov' });
    const fuzzy = hit.json.step_details.alerting.alerts[1].identifier;
    const p1 = await call('GET', `/v2/alerts/${fuzzy}/risks?page_number=1&page_size=2`);
    expect(p1.json).toMatchObject({
      page_number: 1,
      page_size: 2,
      total_count: 5,
      next: `/v2/alerts/${fuzzy}/risks?page_number=2&page_size=2`,
    });
    expect(p1.json.risks).toHaveLength(2);
    const p3 = await call('GET', `/v2/alerts/${fuzzy}/risks?page_number=3&page_size=2`);
    expect(p3.json.risks).toHaveLength(1);
    expect(p3.json.next).toBeNull();
    expect((await call('GET', `/v2/alerts/${fuzzy}/risks?page_size=500`)).json.title).toBe('Validation error');
    expect((await call('GET', '/v2/alerts/ALR-nope/risks')).json).toMatchObject({ status: 404, title: 'Not found' });
  });

  it('records decisions, mutes once (409 Conflict on a repeat) and sets the monitoring flag', async () => {
    const hit = await screen({ first_name: 'Maria', last_name: 'Moreau' });
    const customer = hit.json.step_details['customer-creation'].customer_identifier;
    const alert = hit.json.step_details.alerting.alerts[0].identifier;
    const risk = (await call('GET', `/v2/alerts/${alert}/risks`)).json.risks[0];
    expect(
      (await call('POST', `/v2/alerts/${alert}/risks/${risk.identifier}/decision`, { decision: 'FALSE_POSITIVE' })).json
        .decision,
    ).toBe('FALSE_POSITIVE');
    expect(
      (await call('POST', `/v2/alerts/${alert}/risks/${risk.identifier}/decision`, { decision: 'MAYBE' })).status,
    ).toBe(400);
    const mute = {
      profile_identifier: risk.detail.profile.identifier,
      customer_identifier: customer,
      risk_identifier: risk.identifier,
    };
    expect((await call('POST', '/v2/alerts/mutes', mute)).status).toBe(201);
    expect((await call('POST', '/v2/alerts/mutes', mute)).json).toMatchObject({ status: 409, title: 'Conflict' });
    // a muted profile no longer gives a hit when the customer is screened again
    const again = await screen(
      { first_name: 'Maria', last_name: 'Moreau' },
      sv.customers.get(customer)!.external_identifier,
    );
    expect(again.json.step_details.alerting.alerts).toEqual([]);
    const m = await call('PATCH', `/v2/customers/${customer}/monitor`, {
      entity_screening: { enabled: true },
      monitoring_profile_identifier: 'MP-1',
    });
    expect(m.json).toMatchObject({
      customer_identifier: customer,
      entity_screening: { enabled: true },
      monitoring_profile_identifier: 'MP-1',
    });
    expect((await call('GET', `/v2/customers/${customer}`)).json.monitoring).toEqual({
      enabled: true,
      monitoring_profile_identifier: 'MP-1',
    });
  });

  it('a company customer is an Invalid workflow_type problem', async () => {
    const r = await call('POST', '/v2/workflows/sync/create-and-screen', {
      customer: { external_identifier: 'C', company: { name: 'Demo' } },
      configuration: { screening_configuration_identifier: 'x' },
    });
    expect(r.status).toBe(400);
    expect(r.json.title).toMatch(/^Invalid workflow_type/);
  });

  it('sends signed webhooks to the URL given over the control API, redelivering on non-2xx', async () => {
    const hit = await screen({ first_name: 'Ahmed', last_name: 'Karimov' }, 'E-AK', true);
    const customer = hit.json.step_details['customer-creation'].customer_identifier;
    answers.push(503);
    const res = await fetch(`${sv.url}/__screenvendor/trigger/list-update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customer_identifier: customer, webhookUrl: receiverUrl, attempts: 3, retryDelayMs: 100 }),
    });
    const t = await res.json();
    expect(t.delivered).toBe(true);
    expect(t.deliveries.map((d: any) => d.status)).toEqual([503, 200]);
    expect(received).toHaveLength(2);
    for (const w of received) {
      expect(w.headers['webhook-id']).toBe(t.webhookId);
      expect(
        verifySignature(
          [SANDBOX_WEBHOOK_SECRET],
          {
            id: w.headers['webhook-id'],
            timestamp: w.headers['webhook-timestamp'],
            signature: w.headers['webhook-signature'],
            body: w.raw,
          },
          300,
        ),
      ).toEqual({ ok: true });
    }
    const payload = JSON.parse(received[0]!.raw.toString());
    expect(payload).toMatchObject({
      api_version: 'v2',
      webhook_type: 'CASE_ALERT_LIST_UPDATED',
      customer: { identifier: customer, external_identifier: 'E-AK' },
    });
    expect(payload.alert_identifiers).toHaveLength(2);
    const put = await fetch(`${sv.url}/__screenvendor/webhook-url`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiverUrl }),
    });
    expect(put.status).toBe(200);
    expect(sv.webhookUrl).toBe(receiverUrl);
  });
});
