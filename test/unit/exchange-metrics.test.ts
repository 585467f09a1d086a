// The exchange as JSONata sees it, and metric children that survive a registry reset.
import { describe, expect, it } from 'vitest';
import { createExchange, deriveExchange } from '../../engine/pipeline/exchange.ts';
import { compileExpression } from '../../engine/expressions/expressions.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { Metrics } from '../../engine/observability/metrics.ts';

describe('exchange', () => {
  it('expressions see the message parts, not the logger or unset bookkeeping fields', async () => {
    const ex = createExchange({ routeId: 'r', correlationId: 'c', body: { a: 1 }, logger: createLogger('silent') });
    const keys = (await compileExpression('$keys($)').evaluate(ex)) as string[];
    expect(keys).toEqual(
      expect.arrayContaining([
        'routeId',
        'correlationId',
        'body',
        'headers',
        'query',
        'params',
        'vars',
        'status',
        'responseHeaders',
      ]),
    );
    for (const hidden of ['log', '_log', 'logger', 'stopped', 'error', 'completions'])
      expect(keys).not.toContain(hidden);
    expect(ex.log).toBeDefined();
  });

  it('a derived exchange (split item) shares vars by copy, the logger, and takes the patch', () => {
    const ex = createExchange({
      routeId: 'r',
      correlationId: 'c',
      body: [1, 2],
      headers: { h: '1' },
      logger: createLogger('silent'),
    });
    ex.vars.x = 1;
    const sub = deriveExchange(ex, { body: 2, vars: { ...ex.vars, index: 1 }, stopped: false });
    expect(sub).toMatchObject({
      routeId: 'r',
      correlationId: 'c',
      body: 2,
      headers: { h: '1' },
      vars: { x: 1, index: 1 },
      stopped: false,
    });
    expect(sub.log).toBeDefined();
    expect(ex.body).toEqual([1, 2]);
  });
});

describe('metrics', () => {
  it('children bound by a route keep reporting after the registry is reset', async () => {
    const m = new Metrics(false);
    const route = m.route('r1');
    route.request(200);
    route.latency(0.002);
    await m.registry.resetMetrics();
    route.request(200);
    const text = await m.registry.metrics();
    expect(text).toMatch(/engine_route_requests_total\{route="r1",status="200"\} 1\n/);
    expect(text).toMatch(/engine_route_duration_seconds_count\{route="r1"\} 0\n/);
    route.latency(0.002);
    expect(await m.registry.metrics()).toMatch(/engine_route_duration_seconds_bucket\{le="0.0025",route="r1"\} 1\n/);
  });
});
