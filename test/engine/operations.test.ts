// Operations endpoints, correlation ids, log masking and graceful shutdown.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { createLogger, mask } from '../../engine/observability/logger.ts';

const FX = '/foreign-exchange/exchange-rates';
let e: TestEngine;
beforeAll(async () => {
  e = await startTestEngine({ routes: ['routes/hubvendor-foreign-exchange'] });
});
afterAll(async () => {
  await e?.close();
});

describe('operations endpoints', () => {
  it('health, readiness, metrics and OpenAPI', async () => {
    expect((await e.request('GET', '/health/live')).body).toEqual({ status: 'UP' });
    const ready = await e.request('GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.started).toBe(true);

    await e.request('POST', FX, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    await e.request('POST', FX, { buyCurrency: 'EUR' });
    const metrics = await fetch(e.url + '/metrics').then((r) => r.text());
    expect(metrics).toMatch(/engine_route_requests_total\{route="get-exchange-rate",status="200"\} [1-9]/);
    expect(metrics).toMatch(/engine_route_requests_total\{route="get-exchange-rate",status="400"\} [1-9]/);
    expect(metrics).toMatch(
      /engine_vendor_calls_total\{route="get-exchange-rate",target="hubvendor-forex",status="200"\} [1-9]/,
    );
    expect(metrics).toMatch(/engine_route_duration_seconds_bucket\{le="[^"]+",route="get-exchange-rate"\}/);
    expect(metrics).toMatch(
      /engine_route_errors_total\{route="get-exchange-rate",kind="validation",code="GC025"\} [1-9]/,
    );
    // histograms: cumulative buckets up to +Inf, which equals the count; the sum is the total time
    const buckets = [
      ...metrics.matchAll(/engine_route_duration_seconds_bucket\{le="([^"]+)",route="get-exchange-rate"\} (\d+)/g),
    ].map((m) => [m[1], Number(m[2])] as const);
    expect(buckets.map((b) => b[0])).toEqual([
      '0.0005',
      '0.001',
      '0.0025',
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '+Inf',
    ]);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i][1]).toBeGreaterThanOrEqual(buckets[i - 1][1]);
    const count = Number(/engine_route_duration_seconds_count\{route="get-exchange-rate"\} (\d+)/.exec(metrics)![1]);
    expect(count).toBe(2);
    expect(buckets.at(-1)![1]).toBe(count);
    expect(
      Number(/engine_route_duration_seconds_sum\{route="get-exchange-rate"\} ([0-9.e-]+)/.exec(metrics)![1]),
    ).toBeGreaterThan(0);
    expect(metrics).toMatch(
      /engine_vendor_call_duration_seconds_count\{route="get-exchange-rate",target="hubvendor-forex"\} 1\n/,
    );
    expect(metrics).toMatch(
      /# TYPE engine_exchanges_in_flight gauge\nengine_exchanges_in_flight\{route="get-exchange-rate"\} 0\n/,
    );
    expect(metrics).toMatch(/process_cpu_user_seconds_total/); // prom-client's default metrics are still there

    const api = (await e.request('GET', '/openapi.json')).body;
    expect(api.openapi).toBe('3.1.0');
    const op = api.paths[FX].post;
    expect(op.operationId).toBe('get-exchange-rate');
    // request and response schemas are named components
    const schema = (s: { $ref: string }) => api.components.schemas[s.$ref.replace('#/components/schemas/', '')];
    expect(schema(op.requestBody.content['application/json'].schema).required).toEqual(['buyCurrency', 'sellCurrency']);
    expect(schema(op.responses['200'].content['application/json'].schema).properties.middleRate).toBeDefined();
  });

  it('an unknown path is a 404 problem', async () => {
    const r = await e.request('GET', '/payments/nowhere');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body).toMatchObject({ status: 404, title: 'Not found', instance: '/payments/nowhere' });
  });

  it('generates a correlation id when none (or a malformed one) is sent', async () => {
    const a = await e.request('POST', FX, { buyCurrency: 'EUR', sellCurrency: 'USD' });
    expect(a.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    const b = await e.request(
      'POST',
      FX,
      { buyCurrency: 'EUR', sellCurrency: 'USD' },
      { 'x-correlation-id': 'bad id\twith spaces' },
    );
    expect(b.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('log masking', () => {
  it('masks authorization, subscription keys, passwords and tokens', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const log = createLogger('info', sink as any);
    log.info(
      {
        headers: {
          authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.secret-part',
          'ocp-gateway-subscription-key': 'sk_live_0123456789abcdef',
        },
        amqp: { password: 'hunter2-very-secret' },
        token: 'tok_abcdefghijklmnop',
      },
      'x',
    );
    const out = lines.join('');
    expect(out).not.toContain('secret-part');
    expect(out).not.toContain('0123456789abcdef');
    expect(out).not.toContain('hunter2');
    expect(out).not.toContain('abcdefghijklmnop');
    expect(out).toContain('Bearer eyJh****');
    expect(out).toContain('sk_l****');
    expect(mask('short')).toBe('****');
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM lets in-flight exchanges finish, then exits 0', async () => {
    const child = spawn(
      process.execPath,
      ['bin/engine.js', 'run', 'routes/hubvendor-foreign-exchange', '--env', 'sandbox', '--port', '0'],
      { env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    const started = new Promise<{ url: string; hub: string }>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        out += d;
        const line = out
          .split('\n')
          .slice(0, -1)
          .find((l) => l.includes('"engine started"'));
        if (line) {
          const j = JSON.parse(line);
          resolve({ url: j.url, hub: j.sandbox.hubvendor });
        }
      });
      child.stderr!.on('data', (d) => {
        out += d;
      });
      child.on('exit', (c) => reject(new Error(`exited ${c}: ${out}`)));
    });
    const { url, hub } = await started;
    await fetch(`${hub}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: '^/v1/forex/', delayMs: 700 }),
    });
    const inflight = fetch(url + FX, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ buyCurrency: 'EUR', sellCurrency: 'USD' }),
    });
    // SIGTERM only once the exchange is surely in flight: the vendor call has arrived
    for (let i = 0; i < 200; i++) {
      const seen = await fetch(`${hub}/__sandbox/requests?pathMatch=${encodeURIComponent('^/v1/forex/')}`).then((r) =>
        r.json(),
      );
      if ((Array.isArray(seen) ? seen : (seen.requests ?? [])).length > 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const exited = new Promise<number | null>((r) => {
      child.removeAllListeners('exit');
      child.on('exit', (c) => r(c));
    });
    child.kill('SIGTERM');
    const res = await inflight;
    expect(res.status).toBe(200);
    expect((await res.json()).buyCurrency).toBe('EUR');
    expect(await exited).toBe(0);
    await expect(fetch(url + '/health/live')).rejects.toThrow();
  }, 15_000);
});
