// The exchange recorder as a span processor of the real OpenTelemetry SDK: spans grouped per
// exchange (an in-process called route joins its caller), a bounded ring, filters.

import { describe, expect, it } from 'vitest';
import { context, trace, SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { ExchangeRecorder } from '../../engine/console/recorder.ts';

function setup(capacity: number) {
  const recorder = new ExchangeRecorder(capacity);
  const tracer = new BasicTracerProvider({ spanProcessors: [recorder] }).getTracer('test');
  const exchange = (
    route: string,
    correlationId: string,
    body?: (ctx: ReturnType<typeof context.active>) => void,
    status = 200,
  ) => {
    const span = tracer.startSpan(`POST /${route}`, {
      kind: SpanKind.SERVER,
      attributes: { 'engine.route.id': route, 'engine.source.kind': 'http' },
    });
    span.setAttribute('engine.correlation_id', correlationId);
    const ctx = trace.setSpan(context.active(), span);
    body?.(ctx);
    span.setAttribute('http.response.status_code', status);
    if (status >= 400) span.setAttribute('error.type', 'vendor');
    span.end();
  };
  return { recorder, tracer, exchange };
}

describe('ExchangeRecorder', () => {
  it('groups an exchange with its steps, calls and the routes it called in-process', () => {
    const { recorder, tracer, exchange } = setup(10);
    exchange('outer', 'c-1', (ctx) => {
      const step = tracer.startSpan('to-direct', { attributes: { 'engine.step.index': 0 } }, ctx);
      const sctx = trace.setSpan(ctx, step);
      const inner = tracer.startSpan(
        'inner',
        { attributes: { 'engine.route.id': 'inner', 'engine.source.kind': 'direct' } },
        sctx,
      );
      const call = tracer.startSpan(
        'GET vendor',
        { kind: SpanKind.CLIENT, attributes: { 'http.request.resend_count': 1 } },
        trace.setSpan(sctx, inner),
      );
      call.end();
      inner.end();
      step.end();
    });
    const [x] = recorder.list();
    expect(recorder.list()).toHaveLength(1);
    expect(x).toMatchObject({ route: 'outer', correlationId: 'c-1', outcome: 'ok', calls: 1, retries: 1 });
    expect(recorder.get('c-1')!.spans.map((s) => `${s.role}:${s.name}`)).toEqual([
      'exchange:POST /outer',
      'step:to-direct',
      'exchange:inner',
      'call:GET vendor',
    ]);
  });

  it('keeps the last N exchanges, newest first, and filters by correlation id, route and status', () => {
    const { recorder, exchange } = setup(3);
    for (let i = 1; i <= 5; i++) exchange(i % 2 ? 'odd' : 'even', `c-${i}`, undefined, i === 5 ? 502 : 200);
    expect(recorder.list().map((x) => x.correlationId)).toEqual(['c-5', 'c-4', 'c-3']);
    expect(recorder.get('c-1')).toBeUndefined();
    expect(recorder.list({ route: 'odd' }).map((x) => x.correlationId)).toEqual(['c-5', 'c-3']);
    expect(recorder.list({ status: 'error' }).map((x) => x.correlationId)).toEqual(['c-5']);
    expect(recorder.list({ status: '200' }).map((x) => x.correlationId)).toEqual(['c-4', 'c-3']);
    expect(recorder.list({ limit: 1 })).toHaveLength(1);
  });

  it('tells subscribers about each exchange as it starts and as it ends, and ignores spans outside exchanges', () => {
    const { recorder, tracer, exchange } = setup(3);
    const seen: string[] = [];
    const off = recorder.subscribe((e) => seen.push(`${e.route}:${e.outcome}`));
    exchange('r', 'c-1');
    tracer.startSpan('stray').end();
    off();
    exchange('r', 'c-2');
    expect(seen).toEqual(['r:running', 'r:ok']);
    expect(recorder.list()).toHaveLength(2);
  });

  it('places the spans of a sub-millisecond exchange inside it, though the SDK starts them on whole milliseconds', () => {
    const { recorder, tracer, exchange } = setup(3);
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    exchange('warm-up', 'c-warm', (ctx) => tracer.startSpan('s', {}, ctx).end()); // first spans are slow
    // the exchange starts late in one millisecond, its step early in the next
    const t = Date.now();
    while (Date.now() === t);
    spin(0.8);
    exchange('quick', 'c-quick', (ctx) => {
      spin(0.3);
      const step = tracer.startSpan('transform', { attributes: { 'engine.step.index': 0 } }, ctx);
      step.addEvent('produced');
      step.end();
    });
    const x = recorder.get('c-quick')!;
    const step = x.spans.find((s) => s.role === 'step')!;
    expect(step.start).toBeGreaterThan(0.2);
    // each span's clock is read a few microseconds after the SDK's: 50 µs of slack, where a whole
    // millisecond start is off by up to one
    expect(step.start + step.durationMs).toBeLessThanOrEqual(x.durationMs! + 0.05);
    expect(step.events[0]!.at).toBeGreaterThanOrEqual(step.start);
    expect(step.events[0]!.at).toBeLessThanOrEqual(step.start + step.durationMs + 0.05);
  });
});
