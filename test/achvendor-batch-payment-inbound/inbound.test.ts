// gc-achvendor-batch-payment-inbound-connector over real sockets: signed webhooks from the achvendor
// simulator as batches progress, one event per payment, rejection handling both ways, 401 on bad
// signatures, 2xx only after the event hub accepted every event.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { BATCH_CANCEL_PATH, SANDBOX_WEBHOOK_SECRET, type Achvendor } from '../../sandbox/achvendor/index.ts';
import { sign } from '../../engine/outbound/webhook-signature.ts';
import { achvendorOf, batch, entry, eventually } from '../achvendor-batch-payment/fixtures.ts';

const ROUTES = ['routes/achvendor-batch-payment', 'routes/achvendor-batch-payment-inbound'];
const BATCH_TYPE = 'com.platform.payment.event.spec.v1.BatchStatusUpdateEvent';
const PAYMENT_TYPE = 'com.platform.payment.event.spec.v1.BatchPaymentStatusUpdateEvent';

async function start(set: Record<string, string> = {}): Promise<{ engine: TestEngine; ach: Achvendor }> {
  const engine = await startTestEngine({ routes: ROUTES, set: { 'redelivery.delay': '20', ...set } });
  const ach = achvendorOf(engine);
  ach.setStepDelay(null);
  ach.setWebhookBaseUrl(engine.url);
  return { engine, ach };
}

let engine: TestEngine;
let ach: Achvendor;
beforeAll(async () => ({ engine, ach } = await start()));
afterAll(() => engine?.close());
afterEach(async () => {
  await ach.idle();
  ach.server.clearFaults();
  ach.server.clearRequests();
  engine.sandbox.eventhub.server.clearFaults();
  // a vendor healthy again for the next case: its breaker closed too (a breaker stays open for its delay)
  engine.services.http.guards.reset();
});

const events = (batchId: string, type?: string) =>
  engine.sandbox.eventhub.events({ type }).filter((e: any) => e.data.batch_id === batchId);
const submit = async (b = batch()) => {
  const r = await engine.request('POST', '/batch-payments/credit-batches', b);
  expect(r.status).toBe(202);
  return r.body.batch_id as string;
};
const signed = (body: unknown, id = `msg_${Math.random().toString(36).slice(2)}`, secret = SANDBOX_WEBHOOK_SECRET) => {
  const raw = JSON.stringify(body);
  const ts = Math.floor(Date.now() / 1000);
  return {
    raw,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': sign(secret, id, ts, raw) },
  };
};

describe('batch status webhooks', () => {
  it('publishes one event per batch status as the vendor batch progresses', async () => {
    const id = await submit();
    ach.advance(id);
    ach.advance(id);
    ach.advance(id);
    ach.advance(id);
    await ach.idle();
    const statuses = events(id, BATCH_TYPE).map((e: any) => e.data.status);
    expect(statuses).toEqual(['RECEIVED', 'VALIDATING', 'ACCEPTED', 'SUBMITTED', 'SETTLED']);
    const e = events(id, BATCH_TYPE)[0] as any;
    expect(e).toMatchObject({
      specversion: '1.0',
      source: 'com.platform.payments',
      type: BATCH_TYPE,
      topic: 'batch-status',
      dataversion: '1.0.0',
      subject: id,
      data: {
        batch_id: id,
        status: 'RECEIVED',
        entry_count: 2,
        rejection_handling: { enabled: true, rejection_reported: false, action: 'NONE' },
      },
    });
    expect(
      ach
        .deliveries()
        .filter((d) => d.body.batch_id === id)
        .every((d) => d.delivered && d.attempts.length === 1),
    ).toBe(true);
  });

  it('unsigned, badly signed or stale webhooks get 401 and publish nothing', async () => {
    const body = {
      event_type: 'BATCH_STATUS_UPDATE',
      batch_id: 'ACHB-X401',
      status: 'ACCEPTED',
      updated_at: new Date().toISOString(),
    };
    const before = engine.sandbox.eventhub.events().length;
    const u = await engine.request('POST', '/webhooks/batch/statusupdate', body);
    expect(u.status).toBe(401);
    expect(u.body.code).toBe('GC002');
    const bad = signed(body, 'msg_bad', 'whsec_' + Buffer.from('another secret').toString('base64'));
    expect(
      (
        await engine.request('POST', '/webhooks/batch/statusupdate', bad.raw, {
          'content-type': 'application/json',
          ...bad.headers,
        })
      ).status,
    ).toBe(401);
    const good = signed(body, 'msg_tampered');
    expect(
      (
        await engine.request('POST', '/webhooks/batch/statusupdate', good.raw.replace('ACCEPTED', 'SETTLED'), {
          'content-type': 'application/json',
          ...good.headers,
        })
      ).status,
    ).toBe(401);
    const stale = signed(body, 'msg_stale');
    stale.headers['webhook-timestamp'] = String(Math.floor(Date.now() / 1000) - 3600);
    expect(
      (
        await engine.request('POST', '/webhooks/batch/statusupdate', stale.raw, {
          'content-type': 'application/json',
          ...stale.headers,
        })
      ).status,
    ).toBe(401);
    expect(
      (await engine.request('POST', '/webhooks/payment/paymentupdate', { batch_id: 'X', payments: [] })).status,
    ).toBe(401);
    expect(engine.sandbox.eventhub.events().length).toBe(before);
    expect(ach.server.requests({ path: BATCH_CANCEL_PATH })).toHaveLength(0);
  });

  it('a redelivered webhook (same webhook-id) is not published twice; event ids are stable', async () => {
    const body = {
      event_type: 'BATCH_STATUS_UPDATE',
      batch_id: 'ACHB-DUP',
      status: 'SUBMITTED',
      updated_at: '2026-01-01T00:00:00Z',
    };
    const s = signed(body, 'msg_dup_1');
    const h = { 'content-type': 'application/json', ...s.headers };
    expect((await engine.request('POST', '/webhooks/batch/statusupdate', s.raw, h)).status).toBe(200);
    const again = await engine.request('POST', '/webhooks/batch/statusupdate', s.raw, h);
    expect(again.body).toEqual({ status: 'duplicate' });
    const s2 = signed(body, 'msg_dup_2'); // the same notification under a new webhook-id
    await engine.request('POST', '/webhooks/batch/statusupdate', s2.raw, {
      'content-type': 'application/json',
      ...s2.headers,
    });
    const evs = events('ACHB-DUP');
    expect(evs).toHaveLength(2);
    expect(evs[0].id).toBe(evs[1].id);
  });

  it('answers 503 while the event hub refuses; the vendor redelivers and the event is then published', async () => {
    // four failures: the publication's attempts (1 + redelivery.maximumRetries 3), one fewer than
    // the event hub breaker's threshold (5 in a row), so the vendor's quick redelivery finds it closed
    engine.sandbox.eventhub.server.addFault({ method: 'POST', path: '^/events$', status: 503, times: 4 });
    const d = await ach.sendWebhook('batch-status', {
      event_type: 'BATCH_STATUS_UPDATE',
      batch_id: 'ACHB-EH',
      status: 'SUBMITTED',
      updated_at: new Date().toISOString(),
    });
    expect(d.attempts[0]).toBe(503);
    expect(d.delivered).toBe(true);
    expect(events('ACHB-EH')).toHaveLength(1);
  });
});

describe('payment status webhooks', () => {
  it('one event per payment, as many as the notification holds', async () => {
    const payments = ['P1', 'P2', 'P3', 'P4'].map((ref, i) => ({
      payment_id: `PAY-${i}`,
      entry_reference: ref,
      status: 'SETTLED',
      amount_minor: 100 * (i + 1),
      updated_at: '2026-01-02T00:00:00Z',
    }));
    const s = signed({
      event_type: 'PAYMENT_STATUS_UPDATE',
      batch_id: 'ACHB-PAY4',
      batch_reference: 'B-PAY4',
      payments,
    });
    const r = await engine.request('POST', '/webhooks/payment/paymentupdate', s.raw, {
      'content-type': 'application/json',
      ...s.headers,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'accepted', events: 4 });
    const evs = events('ACHB-PAY4', PAYMENT_TYPE) as any[];
    expect(evs.map((e) => e.data.entry_reference)).toEqual(['P1', 'P2', 'P3', 'P4']);
    expect(new Set(evs.map((e) => e.id)).size).toBe(4);
    expect(evs[0]).toMatchObject({
      topic: 'batch-payment-status',
      source: 'com.platform.payments',
      dataversion: '1.0.0',
      subject: 'ACHB-PAY4/P1',
      data: {
        batch_id: 'ACHB-PAY4',
        batch_reference: 'B-PAY4',
        payment_id: 'PAY-0',
        status: 'SETTLED',
        amount_minor: 100,
      },
    });
  });

  it('settlement with returns R01-R04: a PARTIALLY_RETURNED batch and one event per payment', async () => {
    const id = await submit(
      batch(
        {},
        [
          entry({ account_number: '9990011' }),
          entry({ account_number: '9990022' }),
          entry({ account_number: '9990033' }),
          entry({ account_number: '9990044' }),
          entry({ account_number: '55555' }),
        ].slice(0, 5),
      ),
    );
    for (let i = 0; i < 4; i++) ach.advance(id);
    await ach.idle();
    expect(events(id, BATCH_TYPE).at(-1)?.data).toMatchObject({ status: 'PARTIALLY_RETURNED' });
    const settled = events(id, PAYMENT_TYPE).filter((e: any) =>
      ['RETURNED', 'SETTLED'].includes(e.data.status),
    ) as any[];
    expect(settled).toHaveLength(5);
    expect(settled.map((e) => e.data.return_code ?? null)).toEqual(['R01', 'R02', 'R03', 'R04', null]);
    expect(settled[1].data.return_reason).toBe('Account closed');
  });

  it('answers 2xx only after every event was accepted (event hub down during the notification)', async () => {
    // as above: the first delivery's publication fails on each attempt, below the breaker's threshold
    engine.sandbox.eventhub.server.addFault({ method: 'POST', path: '^/events$', status: 503, times: 4 });
    const payments = ['A', 'B', 'C'].map((ref) => ({
      entry_reference: ref,
      status: 'SUBMITTED',
      updated_at: '2026-01-03T00:00:00Z',
    }));
    const d = await ach.sendWebhook('payment-status', {
      event_type: 'PAYMENT_STATUS_UPDATE',
      batch_id: 'ACHB-PDOWN',
      payments,
    });
    expect(d.attempts[0]).toBe(503);
    expect(d.delivered).toBe(true);
    const evs = engine.sandbox.eventhub
      .events({ type: PAYMENT_TYPE, distinct: true })
      .filter((e: any) => e.data.batch_id === 'ACHB-PDOWN');
    expect(evs.map((e: any) => e.data.entry_reference).sort()).toEqual(['A', 'B', 'C']);
  });

  it('refuses a malformed notification with 400 naming the field', async () => {
    const s = signed({ batch_id: 'ACHB-BAD', payments: [{ status: 'SETTLED' }] });
    const r = await engine.request('POST', '/webhooks/payment/paymentupdate', s.raw, {
      'content-type': 'application/json',
      ...s.headers,
    });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].field).toBe('/payments/0/entry_reference');
  });
});

describe('rejection handling (platform.gc.enable.batch.rejection)', () => {
  const rejectingBatch = () => batch({}, [entry({ account_number: '000123' }), entry()]);

  it('on: a batch accepted with rejected entries is cancelled at the vendor and its event says so', async () => {
    const id = await submit(rejectingBatch());
    ach.advance(id);
    ach.advance(id);
    await ach.idle();
    const accepted = (await eventually(() =>
      events(id, BATCH_TYPE).find((e: any) => e.data.status === 'ACCEPTED'),
    )) as any;
    expect(accepted.data.rejected_entries).toHaveLength(1);
    expect(accepted.data.rejection_handling).toEqual({
      enabled: true,
      rejection_reported: true,
      action: 'CANCELLED',
      vendor_status: 'CANCELLED',
    });
    expect(ach.batches.get(id)?.status).toBe('CANCELLED');
    const [cancel] = ach.server.requests({ path: BATCH_CANCEL_PATH });
    expect(cancel.body).toMatchObject({ batch_id: id, originating_dfi: '021000021' });
    expect(cancel.headers).toMatchObject({
      client_key: 'sandbox-achvendor-client-key',
      idempotent_request_key: expect.any(String),
    });
    // the vendor's own CANCELLED notification follows
    expect(events(id, BATCH_TYPE).map((e: any) => e.data.status)).toContain('CANCELLED');
  });

  it('on: a REJECTED batch is cancelled; a batch already submitted is published as CANCEL_REFUSED', async () => {
    const id = await submit(batch({ batch_reference: `REJECT-${Date.now()}` }));
    ach.advance(id);
    ach.advance(id);
    await ach.idle();
    const rej = events(id, BATCH_TYPE).find((e: any) => e.data.status === 'REJECTED') as any;
    expect(rej.data.rejection_handling.action).toBe('CANCELLED');

    const late = await submit();
    ach.advance(late);
    ach.advance(late);
    ach.advance(late);
    await ach.idle();
    const s = signed({
      event_type: 'BATCH_STATUS_UPDATE',
      batch_id: late,
      status: 'REJECTED',
      updated_at: new Date().toISOString(),
    });
    const r = await engine.request('POST', '/webhooks/batch/statusupdate', s.raw, {
      'content-type': 'application/json',
      ...s.headers,
    });
    expect(r.status).toBe(200);
    const ev = events(late, BATCH_TYPE).find((e: any) => e.data.status === 'REJECTED') as any;
    expect(ev.data.rejection_handling).toMatchObject({
      action: 'CANCEL_REFUSED',
      vendor_error: { code: 'RSK-30-3002' },
    });
    expect(ach.batches.get(late)?.status).toBe('SUBMITTED');
  });

  it('on: a vendor that cannot be reached makes the webhook fail (5xx) so it is redelivered, nothing published', async () => {
    ach.server.addFault({
      path: 'cancelbatch$',
      status: 503,
      body: { code: 'RSK-90-9503', message: 'down', target: 'gateway' },
    });
    const s = signed({
      event_type: 'BATCH_STATUS_UPDATE',
      batch_id: 'ACHB-CDOWN',
      status: 'REJECTED',
      updated_at: new Date().toISOString(),
    });
    const r = await engine.request('POST', '/webhooks/batch/statusupdate', s.raw, {
      'content-type': 'application/json',
      ...s.headers,
    });
    expect(r.status).toBe(502);
    expect(ach.server.requests({ path: BATCH_CANCEL_PATH })).toHaveLength(4);
    expect(events('ACHB-CDOWN')).toHaveLength(0);
  });

  it('off: the status is only published, nothing is cancelled', async () => {
    const off = await start({ 'platform.gc.enable.batch.rejection': 'false' });
    try {
      const r = await off.engine.request('POST', '/batch-payments/credit-batches', rejectingBatch());
      const id = r.body.batch_id;
      off.ach.advance(id);
      off.ach.advance(id);
      await off.ach.idle();
      const ev = off.engine.sandbox.eventhub
        .events({ type: BATCH_TYPE })
        .find((e: any) => e.data.batch_id === id && e.data.status === 'ACCEPTED') as any;
      expect(ev.data.rejection_handling).toEqual({ enabled: false, rejection_reported: true, action: 'NONE' });
      expect(off.ach.server.requests({ path: BATCH_CANCEL_PATH })).toHaveLength(0);
      expect(off.ach.batches.get(id)?.status).toBe('ACCEPTED');
    } finally {
      await off.engine.close();
    }
  });

  it('routing.number is needed only with rejection handling on: missing, start-up fails naming it', async () => {
    const inbound = ['routes/achvendor-batch-payment-inbound'];
    const err = await startTestEngine({
      routes: inbound,
      set: { 'inbound-batch-payments-v0:routing.number': '' },
    }).then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeDefined();
    expect(JSON.stringify(err.diagnostics)).toContain(
      'property routing.number of inbound-batch-payments-v0 is not a valid ABA routing number',
    );
    const off = await startTestEngine({
      routes: inbound,
      set: { 'inbound-batch-payments-v0:routing.number': '', 'platform.gc.enable.batch.rejection': 'false' },
    });
    await off.close();
  });
});
