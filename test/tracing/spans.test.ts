// Tracing on (an in-memory exporter): the span tree of an FX request, the traceparent the vendor
// and the event hub receive, an incoming traceparent continued, one span per vendor attempt,
// and no secret or body in any attribute. Real sockets: the engine and the simulators on 127.0.0.1.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { SANDBOX_WEBHOOK_SECRET } from '../../sandbox/achvendor/index.ts';
import { sign } from '../../engine/outbound/webhook-signature.ts';

const FX = '/foreign-exchange/exchange-rates';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;
const exporter = new InMemorySpanExporter();
let e: TestEngine;

beforeAll(async () => {
  e = await startTestEngine({
    routes: [
      'routes/hubvendor-foreign-exchange',
      'routes/achvendor-batch-payment',
      'routes/achvendor-batch-payment-inbound',
    ],
    set: { 'foreign-exchange-v1:redeliveryDelay': '5', 'foreign-exchange-v1:backOffMultiplier': '1' },
    tracing: { exporter },
  });
});
afterAll(async () => {
  await e?.close();
});
beforeEach(() => {
  exporter.reset();
  e.sandbox.hubvendor.server.clearFaults();
  e.sandbox.hubvendor.server.clearRequests();
  e.sandbox.eventhub.server.clearRequests();
});

const spans = () => exporter.getFinishedSpans();
const childrenOf = (parent: ReadableSpan) =>
  spans().filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId);
const forexCalls = () => e.sandbox.hubvendor.server.requests().filter((r) => r.path.startsWith('/v1/forex/'));

describe('tracing on', () => {
  it('one FX request: exchange -> steps -> vendor call, and the vendor gets the same trace id', async () => {
    const auth = 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ0cmFjZSJ9.c2lnbmF0dXJl';
    const r = await e.request('POST', FX, { buyCurrency: 'EUR', sellCurrency: 'USD' }, { authorization: auth });
    expect(r.status).toBe(200);
    const root = spans().find((s) => s.name === `POST ${FX}`)!;
    expect(root).toBeDefined();
    expect(root.kind).toBe(SpanKind.SERVER);
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toMatchObject({
      'engine.route.id': 'get-exchange-rate',
      'http.route': FX,
      'http.response.status_code': 200,
    });
    const steps = childrenOf(root).sort(
      (a, b) => Number(a.attributes['engine.step.index']) - Number(b.attributes['engine.step.index']),
    );
    expect(steps.map((s) => s.attributes['engine.step.index'])).toEqual([0, 1, 2]);
    const toHttp = steps[1];
    expect(toHttp.name).toBe('to-http');
    expect(toHttp.attributes['engine.step.path']).toBe('steps[1].to-http');
    const [call] = childrenOf(toHttp);
    expect(call).toMatchObject({ name: 'GET hubvendor-forex', kind: SpanKind.CLIENT });
    expect(call.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'http.response.status_code': 200,
    });
    for (const s of [...steps, call]) expect(s.spanContext().traceId).toBe(root.spanContext().traceId);

    const sent = String(forexCalls()[0].headers.traceparent);
    const [, traceId, parentId] = TRACEPARENT.exec(sent)!;
    expect(traceId).toBe(root.spanContext().traceId);
    expect(parentId).toBe(call.spanContext().spanId);
    // what the caller sent (token) and the body never become attributes
    const attrs = JSON.stringify(spans().map((s) => s.attributes));
    expect(attrs).not.toContain('eyJ');
    expect(attrs).not.toContain('authorization');
    expect(attrs).not.toContain('EUR');
  });

  it('continues an incoming W3C traceparent and passes tracestate on', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const r = await e.request(
      'POST',
      FX,
      { buyCurrency: 'GBP', sellCurrency: 'USD' },
      {
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
        tracestate: 'vendorx=abc',
      },
    );
    expect(r.status).toBe(200);
    const root = spans().find((s) => s.name === `POST ${FX}`)!;
    expect(root.spanContext().traceId).toBe(traceId);
    expect(root.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    const headers = forexCalls()[0].headers;
    expect(TRACEPARENT.exec(String(headers.traceparent))![1]).toBe(traceId);
    expect(headers.tracestate).toBe('vendorx=abc');
  });

  it('a malformed traceparent starts a new trace, the request is served as usual', async () => {
    const r = await e.request('POST', FX, { buyCurrency: 'GBP', sellCurrency: 'CHF' }, { traceparent: 'not-a-trace' });
    expect(r.status).toBe(200);
    const root = spans().find((s) => s.name === `POST ${FX}`)!;
    expect(root.parentSpanContext).toBeUndefined();
    expect(TRACEPARENT.exec(String(forexCalls()[0].headers.traceparent))![1]).toBe(root.spanContext().traceId);
  });

  it('each vendor attempt is its own span; the retry carries its resend count', async () => {
    e.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', status: 503, times: 1 });
    const r = await e.request('POST', FX, { buyCurrency: 'EUR', sellCurrency: 'JPY' });
    expect(r.status).toBe(200);
    const toHttp = spans().find((s) => s.name === 'to-http')!;
    const calls = childrenOf(toHttp).sort(
      (a, b) =>
        Number(a.attributes['http.request.resend_count'] ?? 0) - Number(b.attributes['http.request.resend_count'] ?? 0),
    );
    expect(calls).toHaveLength(2);
    expect(calls[0].attributes['http.response.status_code']).toBe(503);
    expect(calls[0].status.code).toBe(SpanStatusCode.ERROR);
    expect(calls[1].attributes).toMatchObject({ 'http.response.status_code': 200, 'http.request.resend_count': 1 });
    // each attempt told the vendor its own span
    const parents = forexCalls().map((c) => TRACEPARENT.exec(String(c.headers.traceparent))![2]);
    expect(parents).toEqual(calls.map((c) => c.spanContext().spanId));
  });

  it('a failed exchange marks its span: a vendor 5xx mapped to a platform error', async () => {
    e.sandbox.hubvendor.server.addFault({ path: '^/v1/forex/', status: 500 });
    const r = await e.request('POST', FX, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(r.status).toBeGreaterThanOrEqual(500);
    const root = spans().find((s) => s.name === `POST ${FX}`)!;
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes['error.type']).toBe('vendor');
    expect(root.attributes['http.response.status_code']).toBe(r.status);
    expect(spans().find((s) => s.name === 'to-http')!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a webhook route publishes its event with the traceparent extension and header', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const body = {
      event_type: 'BATCH_STATUS_UPDATE',
      batch_id: 'ACHB-TRACE',
      status: 'SUBMITTED',
      updated_at: '2026-02-01T00:00:00Z',
    };
    const raw = JSON.stringify(body);
    const id = 'msg_trace_1';
    const ts = Math.floor(Date.now() / 1000);
    const r = await e.request('POST', '/webhooks/batch/statusupdate', raw, {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': sign(SANDBOX_WEBHOOK_SECRET, id, ts, raw),
      traceparent: `00-${traceId}-b7ad6b7169203331-01`,
    });
    expect(r.status).toBe(200);
    const event = e.sandbox.eventhub.events().find((x: any) => x.data.batch_id === 'ACHB-TRACE')!;
    expect(TRACEPARENT.exec(String(event.traceparent))![1]).toBe(traceId);
    const publish = spans().find((s) => s.kind === SpanKind.PRODUCER)!;
    expect(publish.spanContext().traceId).toBe(traceId);
    expect(publish.attributes).toMatchObject({
      'cloudevents.event_id': event.id,
      'messaging.destination.name': event.topic,
    });
    // the event names the publishing step, the HTTP request the publication attempt
    const step = spans().find((s) => s.name === 'to-eventhub')!;
    expect(TRACEPARENT.exec(String(event.traceparent))![2]).toBe(step.spanContext().spanId);
    const post = e.sandbox.eventhub.server.requests().find((q) => q.method === 'POST')!;
    expect(TRACEPARENT.exec(String(post.headers.traceparent))![2]).toBe(publish.spanContext().spanId);
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain('ACHB-TRACE');
  });
});
