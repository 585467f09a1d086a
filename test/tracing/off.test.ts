// Tracing off (the default: no OTEL_* variables): nothing is traced, no traceparent reaches a vendor,
// the event hub or an event, even when the caller sent one.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { SANDBOX_WEBHOOK_SECRET } from '../../sandbox/achvendor/index.ts';
import { sign } from '../../engine/outbound/webhook-signature.ts';

const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
let e: TestEngine;

beforeAll(async () => {
  e = await startTestEngine({
    routes: [
      'routes/hubvendor-foreign-exchange',
      'routes/achvendor-batch-payment',
      'routes/achvendor-batch-payment-inbound',
    ],
    processEnv: { ...process.env, OTEL_SERVICE_NAME: 'named-but-not-exported' },
  });
});
afterAll(async () => {
  await e?.close();
});

describe('tracing off', () => {
  it('is off unless an exporter or endpoint is configured', () => {
    expect(e.services.tracing.tracer).toBeUndefined();
  });

  it('sends no traceparent to the vendor', async () => {
    const r = await e.request(
      'POST',
      '/foreign-exchange/exchange-rates',
      { buyCurrency: 'EUR', sellCurrency: 'USD' },
      { traceparent: incoming },
    );
    expect(r.status).toBe(200);
    const call = e.sandbox.hubvendor.server.requests().find((q) => q.path.startsWith('/v1/forex/'))!;
    expect(call.headers.traceparent).toBeUndefined();
    expect(call.headers.tracestate).toBeUndefined();
  });

  it('publishes events without the traceparent extension or header', async () => {
    const raw = JSON.stringify({
      event_type: 'BATCH_STATUS_UPDATE',
      batch_id: 'ACHB-NOTRACE',
      status: 'SUBMITTED',
      updated_at: '2026-02-01T00:00:00Z',
    });
    const id = 'msg_notrace_1';
    const ts = Math.floor(Date.now() / 1000);
    const r = await e.request('POST', '/webhooks/batch/statusupdate', raw, {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': sign(SANDBOX_WEBHOOK_SECRET, id, ts, raw),
      traceparent: incoming,
    });
    expect(r.status).toBe(200);
    const event = e.sandbox.eventhub.events().find((x: any) => x.data.batch_id === 'ACHB-NOTRACE')!;
    expect(event).toBeDefined();
    expect('traceparent' in event).toBe(false);
    const posts = e.sandbox.eventhub.server.requests().filter((q) => q.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    for (const p of posts) expect(p.headers.traceparent).toBeUndefined();
  });
});
