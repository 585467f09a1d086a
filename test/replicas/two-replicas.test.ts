// Two engine processes (`node bin/engine.js run`) as replicas behind a load balancer, sharing one
// Redis (127.0.0.1:6379: engine.store for dedupe, gateway.redis for the limits), one RabbitMQ queue
// (AMQP 1.0 on 127.0.0.1:5672) and one event hub sink started here. Unique queue and key prefix per
// run; the suite fails, never skips, without Redis or RabbitMQ.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { stableId } from '../../engine/core/functions.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  bodyOf,
  drain,
  openConnection,
  publish,
  statusMessage,
  uniqueQueue,
  until,
} from '../hubvendor-payment-inbound/helpers.ts';
import {
  REDIS_URL,
  deleteKeys,
  signedWebhook,
  startReplica,
  startSharedSink,
  uniquePrefix,
  valuesWithStore,
  type Replica,
  type SharedSink,
} from './helpers.ts';

const STATUS_TYPE = 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent';
const ROUTES = [
  'routes/achvendor-batch-payment-inbound',
  'routes/hubvendor-payment-inbound',
  'routes/gateway',
  'routes/hubvendor-foreign-exchange',
];
const ANONYMOUS_LIMIT = 7;
const N = 1000;

const prefix = uniquePrefix('replicas');
const queue = uniqueQueue('replicas');
let values: ReturnType<typeof valuesWithStore>;
let sink: SharedSink;
let a: Replica;
let b: Replica;

function replica(name: string): Promise<Replica> {
  const set = [
    `asb.producer.apiUri=${sink.url}/${name}/events`,
    `hubvendor-amqp-url=${BROKER_URL}`,
    `hubvendor-amqp-queue-name=${queue}`,
    `gateway.redis.url=${REDIS_URL}`,
    `gateway.redis.prefix=${prefix}rl:`,
    `gateway.rateLimits.anonymous=${ANONYMOUS_LIMIT}`,
  ];
  return startReplica(
    name,
    [...ROUTES, '--env', 'sandbox', '--values', values.dir, ...set.flatMap((s) => ['--set', s])],
    // the broker's credentials as a deployment passes secrets: through the process environment
    { HUBVENDOR_AMQP_USERNAME: BROKER_USER, HUBVENDOR_AMQP_PASSWORD: BROKER_PASSWORD },
  );
}

beforeAll(async () => {
  // both services must be up: fail with their reason rather than time out later
  (await openConnection()).close();
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await r.connect();
  r.disconnect();
  values = valuesWithStore({ redis: { url: REDIS_URL, prefix } });
  sink = await startSharedSink(2);
  [a, b] = await Promise.all([replica('a'), replica('b')]);
}, 40_000);

afterAll(async () => {
  await Promise.all([a?.kill('SIGKILL'), b?.kill('SIGKILL')]);
  await sink?.close();
  await deleteKeys(prefix);
  values?.remove();
});

const post = (r: Replica, path: string, raw: string, headers: Record<string, string>) =>
  fetch(r.url + path, { method: 'POST', body: raw, headers }).then(async (res) => ({
    status: res.status,
    body: await res.json().catch(() => undefined),
  }));

describe('two engine processes sharing Redis and RabbitMQ', () => {
  it('a signed webhook delivered to replica A and replayed to replica B publishes one event', async () => {
    const batches = (id: string) => sink.received.filter((x) => x.event.data?.batch_id === id);
    const w = signedWebhook(
      {
        event_type: 'BATCH_STATUS_UPDATE',
        batch_id: 'ACHB-REPLAY',
        status: 'SUBMITTED',
        updated_at: '2026-01-01T00:00:00Z',
      },
      `msg_${prefix}replay`,
    );
    const first = await post(a, '/webhooks/batch/statusupdate', w.raw, w.headers);
    expect(first).toMatchObject({ status: 200, body: { status: 'accepted' } });
    // the done marker is written as the exchange completes; until then B answers a retriable 409
    await expect
      .poll(() => post(b, '/webhooks/batch/statusupdate', w.raw, w.headers), { timeout: 5000 })
      .toEqual({ status: 200, body: { status: 'duplicate' } });
    // the event leaves through the outbox, just after the answer
    await expect.poll(() => batches('ACHB-REPLAY').length, { timeout: 5000 }).toBe(1);

    // the same webhook to both at once: one publishes, the other is told to retry or that it is a duplicate
    const w2 = signedWebhook(
      {
        event_type: 'BATCH_STATUS_UPDATE',
        batch_id: 'ACHB-RACE',
        status: 'SUBMITTED',
        updated_at: '2026-01-01T00:00:00Z',
      },
      `msg_${prefix}race`,
    );
    const both = await Promise.all([a, b].map((r) => post(r, '/webhooks/batch/statusupdate', w2.raw, w2.headers)));
    expect(both.filter((x) => x.status === 200 && x.body.status === 'accepted')).toHaveLength(1);
    for (const x of both) expect([200, 409]).toContain(x.status);
    await expect.poll(() => batches('ACHB-RACE').length, { timeout: 5000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(batches('ACHB-REPLAY')).toHaveLength(1);
    expect(batches('ACHB-RACE')).toHaveLength(1);
    console.info(
      `replicas: webhook replayed across replicas -> ${batches('ACHB-REPLAY').length} event; concurrent delivery -> ${both.map((x) => x.status).join('/')}, ${batches('ACHB-RACE').length} event`,
    );
  });

  it('the anonymous limit holds exactly across both replicas', async () => {
    const ping = (r: Replica, i: number) =>
      fetch(`${r.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'ocp-gateway-subscription-key': 'sandbox-demo-subscription-key',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }),
      }).then((res) => res.status);
    const statuses = await Promise.all(Array.from({ length: 3 * ANONYMOUS_LIMIT }, (_, i) => ping(i % 2 ? b : a, i)));
    const accepted = statuses.filter((s) => s === 200).length;
    console.info(
      `replicas: anonymous limit ${ANONYMOUS_LIMIT}: ${accepted} of ${statuses.length} accepted across both, ${statuses.filter((s) => s === 429).length} refused with 429`,
    );
    expect(accepted).toBe(ANONYMOUS_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(statuses.length - ANONYMOUS_LIMIT);
  });

  it(`${N} payment status messages, competing consumers, one replica SIGKILLed midway: 0 lost, duplicates keep their id`, async () => {
    const msgs = Array.from({ length: N }, () => statusMessage());
    const expected = new Map(
      msgs.map((m) => [bodyOf(m).paymentOrderId as string, stableId(STATUS_TYPE, m.message_id)]),
    );
    const statusEvents = () =>
      sink.received.filter((x) => x.event.type === STATUS_TYPE && expected.has(x.event.data?.bankReferenceId));
    await publish(queue, msgs);
    await until(() => statusEvents().length >= N * 0.4, 30_000, 'events from both replicas');
    await b.kill('SIGKILL');
    const atKill = statusEvents().length;
    await until(
      () => new Set(statusEvents().map((x) => x.event.id)).size === N,
      30_000,
      `all ${N} events after replica b died`,
    );

    const events = statusEvents();
    for (const x of events) expect(x.event.id).toBe(expected.get(x.event.data.bankReferenceId));
    const distinct = new Set(events.map((x) => x.event.id)).size;
    const lost = N - distinct;
    const duplicates = events.length - distinct;
    const share = (name: string) => events.filter((x) => x.replica === name).length;
    console.info(
      `replicas: ${N} messages -> lost ${lost}, duplicates ${duplicates} (same CloudEvent id), ` +
        `replica a ${share('a')} events, replica b ${share('b')} events (SIGKILLed after ${atKill} events in all)`,
    );
    expect(lost).toBe(0);
    expect(share('a')).toBeGreaterThan(0);
    expect(share('b')).toBeGreaterThan(0);
    expect(await drain(queue, 300)).toEqual([]);
  }, 60_000);
});
