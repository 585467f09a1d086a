// Switching tracing on with the usual OTel variables: which settings turn it on, which are refused
// with a message naming the variable, and a real OTLP/HTTP export to a collector stub on 127.0.0.1.

import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tracingExporters } from '../../engine/pipeline/tracing-sdk.ts';
import type { EngineServices } from '../../engine/pipeline/compile-context.ts';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { startTestEngine } from '../helpers/engine.ts';

describe('tracingExporters', () => {
  const cases: [string, NodeJS.ProcessEnv, string[]][] = [
    ['nothing set: off', {}, []],
    ['only a service name: off', { OTEL_SERVICE_NAME: 'x' }, []],
    ['an endpoint: otlp', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, ['otlp']],
    ['a traces endpoint: otlp', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, ['otlp']],
    ['exporter named', { OTEL_TRACES_EXPORTER: 'otlp' }, ['otlp']],
    ['two exporters', { OTEL_TRACES_EXPORTER: 'otlp, console' }, ['otlp', 'console']],
    ['none wins over an endpoint', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, []],
    ['SDK disabled', { OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }, []],
    [
      'http/protobuf accepted',
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
      ['otlp'],
    ],
  ];
  for (const [name, env, want] of cases) it(name, () => expect(tracingExporters(env)).toEqual(want));

  it('refuses an exporter it does not have, and gRPC, naming the variable', () => {
    expect(() => tracingExporters({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      /OTEL_TRACES_EXPORTER: unknown exporter 'zipkin'/,
    );
    expect(() =>
      tracingExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
  });
});

describe('OTLP export', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_') && !(k in saved)) delete process.env[k];
  });

  it('an engine started with OTEL_EXPORTER_OTLP_ENDPOINT exports its spans there', async () => {
    const received: { path?: string; headers: IncomingHttpHeaders; body: any }[] = [];
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.push({
          path: req.url,
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    try {
      // the SDK's exporter reads process.env itself
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      process.env.OTEL_EXPORTER_OTLP_HEADERS = 'x-collector-key=collector-secret-123';
      process.env.OTEL_SERVICE_NAME = 'engine-under-test';
      const e = await startTestEngine({ routes: ['routes/hubvendor-foreign-exchange'] });
      expect(e.services.tracing.tracer).toBeDefined();
      try {
        const r = await e.request('POST', '/foreign-exchange/exchange-rates', {
          buyCurrency: 'EUR',
          sellCurrency: 'USD',
        });
        expect(r.status).toBe(200);
      } finally {
        await e.close(); // flushes the batch
      }
      expect(e.services.tracing.tracer).toBeUndefined();
      const exports = received.filter((x) => x.path === '/v1/traces');
      expect(exports.length).toBeGreaterThan(0);
      expect(exports[0].headers['x-collector-key']).toBe('collector-secret-123');
      const resourceSpans = exports.flatMap((x) => x.body.resourceSpans);
      const service = resourceSpans[0].resource.attributes.find((a: any) => a.key === 'service.name');
      expect(service.value.stringValue).toBe('engine-under-test');
      const names = resourceSpans.flatMap((rs: any) =>
        rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => s.name)),
      );
      expect(names).toEqual(
        expect.arrayContaining(['POST /foreign-exchange/exchange-rates', 'to-http', 'GET hubvendor-forex']),
      );
    } finally {
      await new Promise((r) => collector.close(r));
    }
  });

  it('a request the sampler leaves out records no spans but still passes its trace on, unsampled', async () => {
    process.env.OTEL_TRACES_SAMPLER = 'always_off';
    const exporter = new InMemorySpanExporter();
    const e = await startTestEngine({ routes: ['routes/hubvendor-foreign-exchange'], tracing: { exporter } });
    try {
      const traceId = '5bf92f3577b34da6a3ce929d0e0e4736';
      const r = await e.request(
        'POST',
        '/foreign-exchange/exchange-rates',
        { buyCurrency: 'EUR', sellCurrency: 'USD' },
        { traceparent: `00-${traceId}-00f067aa0ba902b7-00` },
      );
      expect(r.status).toBe(200);
      expect(exporter.getFinishedSpans()).toEqual([]);
      const call = e.sandbox.hubvendor.server.requests().find((q) => q.path.startsWith('/v1/forex/'))!;
      expect(String(call.headers.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
    } finally {
      await e.close();
    }
  });

  it('an invalid OTEL_TRACES_EXPORTER stops the start with a message naming it', async () => {
    process.env.OTEL_TRACES_EXPORTER = 'jaeger';
    // the services of the engine that failed to start, as an extension sees them
    let services: EngineServices | undefined;
    const seen = {
      name: 'seen',
      prepare: (c: { services: EngineServices }) => {
        services = c.services;
      },
    };
    await expect(
      startTestEngine({ routes: ['routes/hubvendor-foreign-exchange'], extensions: [seen] }),
    ).rejects.toThrow(/OTEL_TRACES_EXPORTER: unknown exporter 'jaeger'/);
    expect(services).toBeDefined();
    expect(services!.tracing.tracer).toBeUndefined();
  });
});
