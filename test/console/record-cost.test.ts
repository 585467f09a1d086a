// What keeps the console's recording cheap, and what it must not lose for that: a body is
// serialised natively unless a member's name could be a credential (then the masking replacer runs,
// as before); while only the console reads the spans, at most engine.console.recordPerSecond
// exchanges a second are recorded, and the rest run untraced but answered as ever.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { EngineTracing } from '../../engine/pipeline/engine-tracing.ts';
import { stepBody } from '../../engine/pipeline/tracing-detail.ts';
import { compileSecrets } from '../../engine/observability/mask.ts';
import type { Exchange } from '../../engine/pipeline/exchange.ts';
import type { RunningEngine } from '../../engine/engine.ts';
import { ENGINE_DEFAULTS } from '../../engine/config/engine-settings.ts';
import { startConsoleProject } from '../helpers/project-engine.ts';

describe('a body on the span', () => {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('t');
  const t = new EngineTracing();
  t.detail = { bodyLimit: 4000, secrets: compileSecrets([]) };
  const received = (body: unknown) => {
    const span = tracer.startSpan('step');
    stepBody(t, span, 'received', { body, vars: {} } as unknown as Exchange);
    span.end();
    return String(exporter.getFinishedSpans().at(-1)!.events[0]!.attributes!['engine.body']);
  };

  // every name the masking policy calls a credential (isSecretKey, isSecretHeader), in the cases met
  const names = [
    'password',
    'dbPassword',
    'clientSecret',
    'SECRET',
    'accessToken',
    'refresh_token',
    'client-key',
    'client_key',
    'api-key',
    'apiKey',
    'APIKEY',
    'credentials',
    'privateKey',
    'authorization',
    'Proxy-Authorization',
    'cookie',
    'ocp-gateway-subscription-key',
    'x-api-key',
  ];
  it.each(names)('masks a member named %s however deep it sits', (name) => {
    const text = received({ order: { lines: [{ amount: '1.00', [name]: 'value-123456789' }] } });
    expect(text).not.toContain('value-123456789');
    expect(text).toContain('valu****');
  });

  it('keeps a body without such names exactly as JSON.stringify writes it', () => {
    const body = { iban: 'DE89370400440532013000', amount: { value: '12.50', currency: 'EUR' }, tags: ['a', 'b'] };
    expect(received(body)).toBe(JSON.stringify(body));
  });
});

describe('recording under load', () => {
  let engine: RunningEngine;
  const perSecond = 5;
  beforeAll(async () => {
    engine = await startConsoleProject({
      'values/environments/dev.yaml': `engine:\n  console:\n    enabled: true\n    recordPerSecond: ${perSecond}\n`,
      'routes/r.yaml': 'id: r\nfrom:\n  http: { method: GET, path: /r }\nsteps:\n  - set: { values: { body: "1" } }\n',
    });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });
  const recorded = async () =>
    ((await (await fetch(`${engine.url}/console/api/exchanges?route=r`)).json()) as { exchanges: unknown[] }).exchanges
      .length;

  it('ships 100 a second', () => {
    expect(ENGINE_DEFAULTS.console.recordPerSecond).toBe(100);
  });

  it('records a burst up to the budget, answers every request, and records again after a quiet second', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => fetch(`${engine.url}/r`)));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    const first = await recorded();
    // the budget (5) and what refilled while the burst ran; far from all 40
    expect(first).toBeGreaterThanOrEqual(perSecond);
    expect(first).toBeLessThan(15);
    await new Promise((r) => setTimeout(r, 1100));
    await fetch(`${engine.url}/r`);
    expect(await recorded()).toBe(first + 1);
  });
});
