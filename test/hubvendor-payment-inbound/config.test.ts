// Configuration of the `from: amqp` source: the queue/route mapping (several entries), and the
// lint errors a wrong values file gives (named property, file:line:col), with nothing started.

import { describe, expect, it } from 'vitest';
import { lintProject } from '../../engine/engine.ts';
import { parseMapping } from '../../engine/sources/amqp.ts';
import { createLogger } from '../../engine/observability/logger.ts';

const lint = (set: Record<string, string>) =>
  lintProject({
    routes: ['routes/hubvendor-payment-inbound'],
    env: 'development',
    logger: createLogger('silent'),
    set: {
      'hubvendor-amqp-url': 'amqp://127.0.0.1:5672',
      'hubvendor-amqp-username': 'u',
      'hubvendor-amqp-password': 'p',
      'hubvendor-amqp-queue-name': 'payment-status',
      ...set,
    },
  });

describe('from: amqp configuration', () => {
  it('parses several <queue_name>><route_identifier> entries', () => {
    expect(parseMapping('payment-status>payment-status-inbound, /queue/other>other-route\nq3>r3')).toEqual([
      { queue: 'payment-status', route: 'payment-status-inbound' },
      { queue: '/queue/other', route: 'other-route' },
      { queue: 'q3', route: 'r3' },
    ]);
    expect(() => parseMapping('no-route-here')).toThrow(/<queue_name>><route_identifier>/);
  });

  it('lints clean with the values file', async () => {
    expect(await lint({})).toEqual([]);
  });

  it('a mapping that maps no queue to the route is a lint error naming the property', async () => {
    const d = await lint({ 'source.queue.route.mapping': 'payment-status>another-route' });
    expect(d).toHaveLength(1);
    expect(d[0]!.message).toMatch(
      /maps no queue to this route 'payment-status-inbound' \(property 'source.queue.route.mapping'\)/,
    );
    expect(d[0]!.file).toMatch(/payment-status\.yaml$/);
  });

  it('the route consumes every queue mapped to it', async () => {
    expect(
      await lint({ 'source.queue.route.mapping': 'q1>payment-status-inbound,q2>other,q3>payment-status-inbound' }),
    ).toEqual([]);
  });

  it('rejects another provider and a URL that is not amqp://', async () => {
    const p = await lint({ 'source.provider': 'jms' });
    expect(p[0]!.message).toMatch(/provider/);
    const u = await lint({ 'hubvendor-amqp-url': 'http://broker:5672' });
    expect(u[0]!.message).toMatch(/unsupported scheme 'http'.*amqp\.connection\.url/);
  });
});
