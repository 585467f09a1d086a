// A step's vars on its span, as the console shows them: masked as bodies are (a credential by its
// field name, a token by its shape, a configured secret by its value), and only once a step set one.

import { describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { EngineTracing } from '../../engine/pipeline/engine-tracing.ts';
import { stepBody } from '../../engine/pipeline/tracing-detail.ts';
import { compileSecrets } from '../../engine/observability/mask.ts';
import type { Exchange } from '../../engine/pipeline/exchange.ts';

describe('step vars on the span', () => {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('t');
  const t = new EngineTracing();
  t.detail = { bodyLimit: 4000, secrets: compileSecrets(['configured-s3cret-value']) };

  const produced = (vars: Record<string, unknown>) => {
    const span = tracer.startSpan('set');
    stepBody(t, span, 'produced', { body: { a: 1 }, vars } as unknown as Exchange);
    span.end();
    return exporter.getFinishedSpans().at(-1)!.events[0]!.attributes!;
  };

  it('masks a credential-named var, a bearer token and a configured secret; keeps business data', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
    const a = produced({
      apiKey: 'hunter2-hunter2',
      auth: `Bearer ${jwt}`,
      note: 'configured-s3cret-value',
      iban: 'DE89370400440532013000',
    });
    const text = String(a['engine.vars']);
    expect(text).not.toContain('hunter2-hunter2');
    expect(text).not.toContain(jwt);
    expect(text).not.toContain('configured-s3cret-value');
    expect(JSON.parse(text)).toMatchObject({ apiKey: 'hunt****', iban: 'DE89370400440532013000' });
  });

  it('leaves vars out while there are none', () => {
    expect(produced({})['engine.vars']).toBeUndefined();
    expect(produced({})['engine.body']).toBe('{"a":1}');
  });
});
