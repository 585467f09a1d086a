// Issue 27's figure for the payment status consumer, on the real RabbitMQ and the sandbox's event
// hub simulator: 300 messages streamed over 75 s (one every 250 ms) while the event hub answers
// 503 to everything for 60 s of it. With the shipped breaker (5 failures, a probe every 5 s) the
// consumer stops taking messages while it is open; with the breaker disabled, only the release
// backoff (500 ms doubling to 15 s per consumer) paces the redeliveries. Both run at once, each
// with its engine and queue; the deliveries and event hub calls during the outage are printed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection, Message } from 'rhea';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { stableId } from '../../engine/core/functions.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  captureLogs,
  drain,
  openConnection,
  statusMessage,
  uniqueQueue,
  until,
} from './helpers.ts';
import { counter, routesCopy } from './helpers-breaker.ts';

const TYPE = 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent';
const MESSAGES = 300;
const EVERY_MS = 250;
const OUTAGE_AT_MS = 5_000;
const OUTAGE_MS = 60_000;
const disabled = routesCopy('{ enabled: false }');
const engines: TestEngine[] = [];

beforeAll(async () => {
  (await openConnection()).close();
});
afterAll(async () => {
  for (const e of engines) await e.close().catch(() => {});
  disabled.remove();
});

/** Sends one message every `everyMs`; resolves once the broker accepted them all. */
async function stream(address: string, messages: Message[], everyMs: number): Promise<void> {
  const conn: Connection = await openConnection();
  try {
    await new Promise<void>((resolve, reject) => {
      const sender = conn.open_sender({ target: { address } });
      let accepted = 0;
      let next = 0;
      const tick = setInterval(() => {
        if (next < messages.length && sender.sendable()) sender.send(messages[next++]!);
        if (next === messages.length) clearInterval(tick);
      }, everyMs);
      sender.on('accepted', () => {
        if (++accepted === messages.length) resolve();
      });
      sender.on('rejected', () => reject(new Error('the broker rejected a message')));
      sender.on('sender_error', (ctx) => reject(new Error(`sender failed: ${JSON.stringify(ctx.sender?.error)}`)));
    });
  } finally {
    conn.close();
  }
}

interface Figures {
  /** messages the consumer took and released while the event hub was down */
  deliveries: number;
  /** requests the event hub simulator received while it was down */
  hubCalls: number;
  opened: number;
  closed: number;
  published: number;
  distinct: number;
  /** from the hub's return to its first call (the next probe; without the breaker, the next release backoff's end) */
  firstCallInMs: number;
  recoveredInMs: number;
  paused: number;
  resumed: number;
  leftInQueue: number;
  missing: number;
}

async function phase(tag: string, routes: string): Promise<Figures> {
  const q = uniqueQueue(tag);
  const { logger, lines } = captureLogs();
  const e = await startTestEngine({
    routes: [routes],
    set: {
      'hubvendor-amqp-url': BROKER_URL,
      'hubvendor-amqp-username': BROKER_USER,
      'hubvendor-amqp-password': BROKER_PASSWORD,
      'hubvendor-amqp-queue-name': q,
    },
    logger,
  });
  engines.push(e);
  await until(async () => (await e.request('GET', '/health/ready')).status === 200, 10_000, 'the consumers');
  const hub = e.sandbox.eventhub;
  const released = () => counter(e, 'engine_messages_total', { outcome: 'released' });
  const msgs = Array.from({ length: MESSAGES }, () => statusMessage());
  const sent = stream(q, msgs, EVERY_MS);
  const started = Date.now();

  await new Promise((r) => setTimeout(r, OUTAGE_AT_MS));
  const releasedBefore = await released();
  const faultAt = Date.now();
  hub.server.addFault({ method: 'POST', path: '^/events$', status: 503 });
  await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - faultAt)));
  hub.server.clearFaults();
  const clearAt = Date.now();
  const deliveries = (await released()) - releasedBefore;
  const hubCalls = hub.server
    .requests({ method: 'POST', path: '/events' })
    .filter((r) => r.time >= faultAt && r.time < clearAt).length;

  await sent;
  // the ones sent during the outage wait in the queue: published once the hub is back
  await until(() => hub.events({ type: TYPE, distinct: true }).length >= MESSAGES, 40_000, `${tag}: all events`, 200);
  const recoveredInMs = Date.now() - clearAt;
  const firstCall = hub.server.requests({ method: 'POST', path: '/events' }).find((r) => r.time >= clearAt);
  const events = hub.events({ type: TYPE });
  const ids = new Set(events.map((ev) => ev.id));
  const figures: Figures = {
    deliveries,
    hubCalls,
    opened: await counter(e, 'engine_client_breaker_transitions_total', { to: 'open' }),
    closed: await counter(e, 'engine_client_breaker_transitions_total', { to: 'closed' }),
    published: events.length,
    distinct: ids.size,
    firstCallInMs: firstCall ? firstCall.time - clearAt : -1,
    recoveredInMs,
    paused: lines.filter((l) => String(l.msg).startsWith('AMQP consumer paused')).length,
    resumed: lines.filter((l) => String(l.msg).startsWith('AMQP consumer resumed')).length,
    leftInQueue: 0,
    missing: msgs.filter((m) => !ids.has(stableId(TYPE, m.message_id))).length,
  };
  await e.close();
  engines.splice(engines.indexOf(e), 1);
  figures.leftInQueue = (await drain(q)).length;
  console.log(
    `${tag}: ${MESSAGES} messages over ${Math.round((clearAt - started) / 1000) + 10} s, event hub down ${Math.round((clearAt - faultAt) / 1000)} s: ` +
      `${figures.deliveries} deliveries released and ${figures.hubCalls} event hub calls during the outage; ` +
      `breaker opened ${figures.opened}x, closed ${figures.closed}x; ${figures.distinct} distinct events ` +
      `(${figures.published - figures.distinct} duplicates), ${figures.missing} lost, ${figures.leftInQueue} left in the queue; ` +
      `first call ${(figures.firstCallInMs / 1000).toFixed(1)} s and last event ${(recoveredInMs / 1000).toFixed(1)} s ` +
      `after the hub came back (the stream goes on 10 s)`,
  );
  return figures;
}

describe('payment status consumer, event hub down 60 s', () => {
  it('with the breaker pauses the consumer: bounded deliveries, nothing lost; compared with the breaker disabled', async () => {
    const [withBreaker, without] = await Promise.all([
      phase('bp-breaker', 'routes/hubvendor-payment-inbound'),
      phase('bp-no-breaker', disabled.dir),
    ]);
    // nothing lost either way: every message's event published, the queue empty
    for (const f of [withBreaker, without]) {
      expect(f.missing).toBe(0);
      expect(f.distinct).toBe(MESSAGES);
      expect(f.leftInQueue).toBe(0);
    }
    // the breaker opened (and re-opened after each failed probe), then closed once the hub was back
    expect(withBreaker.opened).toBeGreaterThanOrEqual(1);
    expect(withBreaker.closed).toBe(1);
    expect(withBreaker.paused).toBe(1);
    expect(withBreaker.resumed).toBe(1);
    // the next probe goes at most half-open-after (5 s) after the hub is back
    expect(withBreaker.firstCallInMs).toBeLessThanOrEqual(5_500);
    // at most one probe message per 5 s (12 in 60 s), besides the 4 messages in flight and the 4
    // credits the 4 consumers held when it opened: 20, and 2 for the outage's edges. Without the
    // pause, the 4 consumers take a message at each end of their release backoff (0.5, 1, 2, 4, 8,
    // 15, 15, 15 s): about 32, the breaker refusing them or not.
    expect(withBreaker.deliveries).toBeLessThanOrEqual(22);
    expect(withBreaker.deliveries).toBeLessThan(without.deliveries);
    expect(withBreaker.hubCalls).toBeLessThanOrEqual(22);
    expect(without.opened).toBe(0);
    expect(without.paused).toBe(0);
    expect(without.hubCalls).toBeGreaterThan(withBreaker.hubCalls);
  }, 150_000);
});
