// The AMQP consumer's pause and resume on the event hub's circuit breaker, fast: a copy of the
// payment inbound routes with a breaker opening after 3 failures and probing every second, and a
// release backoff of 50 ms (without the pause, the consumer would take and release messages
// dozens of times a second). Real RabbitMQ and the sandbox's event hub simulator answering 503.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { stableId } from '../../engine/core/functions.ts';
import { captureLogs, drain, openConnection, publish, statusMessage, uniqueQueue, until } from './helpers.ts';
import { BROKER_PASSWORD, BROKER_URL, BROKER_USER } from './helpers.ts';
import { counter, routesCopy } from './helpers-breaker.ts';

const TYPE = 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent';
const copy = routesCopy('{ failures: 3, half-open-after: 1000 }', [
  'prefetch: 2',
  'release-backoff: { delay: 50, max-delay: 100 }',
]);
let engine: TestEngine | undefined;

beforeAll(async () => {
  (await openConnection()).close();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});
afterAll(() => copy.remove());

describe('AMQP consumer backpressure on the event hub breaker', () => {
  it('takes no message while the breaker is open, one probe per half-open, all of them once it closes', async () => {
    const q = uniqueQueue('bp-fast');
    const { logger, lines } = captureLogs();
    engine = await startTestEngine({
      routes: [copy.dir],
      set: {
        'hubvendor-amqp-url': BROKER_URL,
        'hubvendor-amqp-username': BROKER_USER,
        'hubvendor-amqp-password': BROKER_PASSWORD,
        'hubvendor-amqp-queue-name': q,
        'source.concurrent.threads': '2',
        // every failure releases the message: the broker's redeliveries are what is counted
        'redelivery.maximumRetries': '0',
      },
      logger,
    });
    const e = engine;
    await until(async () => (await e.request('GET', '/health/ready')).status === 200, 10_000, 'the consumers');
    const hub = e.sandbox.eventhub;
    hub.server.addFault({ method: 'POST', path: '^/events$', status: 503 });
    const msgs = Array.from({ length: 40 }, () => statusMessage());
    await publish(q, msgs);

    const msg = (l: any) => String(l.msg ?? '');
    await until(() => lines.some((l) => msg(l).startsWith('AMQP consumer paused')), 10_000, 'the pause');
    // the messages in flight when it opened are refused at once; then only probes are taken
    await new Promise((r) => setTimeout(r, 500));
    const from = lines.length;
    const since = Date.now();
    await new Promise((r) => setTimeout(r, 3500));
    const window = lines.slice(from);
    const halfOpens = window.filter((l) => msg(l).includes("/eventhub' half-open")).length;
    const released = window.filter((l) => msg(l).startsWith('message released')).length;
    const calls = hub.server.requests({ method: 'POST', path: '/events' }).filter((r) => r.time >= since).length;
    console.log(
      `3.5 s with the breaker open: ${halfOpens} half-open, ${released} deliveries, ${calls} event hub calls`,
    );
    expect(halfOpens).toBeGreaterThanOrEqual(2);
    expect(halfOpens).toBeLessThanOrEqual(4);
    // one message per half-open (the probe): without the pause, 2 links x 2 credits every 50-100 ms
    expect(released).toBeGreaterThanOrEqual(halfOpens - 1);
    expect(released).toBeLessThanOrEqual(halfOpens + 1);
    expect(calls).toBeLessThanOrEqual(halfOpens + 1);
    // each half-open lets exactly one message through (released once the breaker opened again)
    const perProbe: number[] = [];
    for (const l of window) {
      if (msg(l).includes("/eventhub' half-open")) perProbe.push(0);
      else if (msg(l).startsWith('message released') && perProbe.length) perProbe[perProbe.length - 1]!++;
    }
    expect(perProbe.slice(0, -1)).toEqual(perProbe.slice(0, -1).map(() => 1));
    expect(perProbe.at(-1)).toBeLessThanOrEqual(1);
    // nothing published meanwhile, and one pause line, none per message or per probe
    expect(hub.events({ type: TYPE }).length).toBe(0);
    expect(lines.filter((l) => msg(l).startsWith('AMQP consumer paused')).length).toBe(1);
    expect(lines.some((l) => msg(l).startsWith('AMQP consumer resumed'))).toBe(false);

    hub.server.clearFaults();
    await until(() => hub.events({ type: TYPE, distinct: true }).length === 40, 15_000, 'all 40 events');
    const ids = new Set(hub.events({ type: TYPE }).map((ev) => ev.id));
    expect([...ids].sort()).toEqual(msgs.map((m) => stableId(TYPE, m.message_id)).sort());
    const resumed = lines.filter((l) => msg(l).startsWith('AMQP consumer resumed'));
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatchObject({
      level: 'info',
      client: 'hubvendor-payment-inbound/eventhub',
      route: 'payment-status-inbound',
    });
    expect(await counter(e, 'engine_client_breaker_transitions_total', { to: 'closed' })).toBe(1);
    expect(await counter(e, 'engine_messages_total', { outcome: 'rejected' })).toBe(0);
    await e.close();
    engine = undefined;
    expect(await drain(q)).toEqual([]);
  }, 40_000);
});
