// The payment inbound connector against the real RabbitMQ (127.0.0.1:5672, AMQP 1.0 plugin):
// every message becomes one event, an event hub outage loses nothing, malformed messages are
// rejected and logged while the others go on, the concurrency setting bounds messages in flight.
// Without a reachable broker every test here fails (CI or not): nothing is skipped.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import rhea from 'rhea';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { durableSchemaExtension } from '../helpers/durable-schema.ts';
import { durableStoreFor } from '../../engine/store/durable-for.ts';
import { dropSchema, uniqueSchema } from '../store/helpers.ts';
import { stableId } from '../../engine/core/functions.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  bodyOf,
  captureLogs,
  drain,
  openConnection,
  publish,
  startCountingSink,
  statusMessage,
  uniqueQueue,
  until,
} from './helpers.ts';

const TYPE = 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent';
const ROUTE = 'payment-status-inbound';
let engine: TestEngine | undefined;
const closers: (() => Promise<void>)[] = [];
// rejected messages are recorded as failed exchanges: in a PostgreSQL schema of this file's own
const SCHEMA = uniqueSchema('pi_broker');

beforeAll(async () => {
  // fails the suite with the reason when RabbitMQ or its AMQP 1.0 plugin is missing
  (await openConnection()).close();
});

afterAll(() => dropSchema(SCHEMA));

afterEach(async () => {
  await engine?.close();
  engine = undefined;
  for (const c of closers.splice(0)) await c();
});

async function start(queue: string, set: Record<string, string> = {}, logger?: any): Promise<TestEngine> {
  engine = await startTestEngine({
    routes: ['routes/hubvendor-payment-inbound'],
    set: {
      'hubvendor-amqp-url': BROKER_URL,
      'hubvendor-amqp-username': BROKER_USER,
      'hubvendor-amqp-password': BROKER_PASSWORD,
      'hubvendor-amqp-queue-name': queue,
      ...set,
    },
    ...(logger ? { logger } : {}),
    extensions: [durableSchemaExtension(SCHEMA)],
  });
  await until(
    async () => (await engine!.request('GET', '/health/ready')).status === 200,
    10_000,
    'the consumers to attach',
  );
  return engine;
}

describe('payment inbound against RabbitMQ', () => {
  it('publishes one event per message, with the id derived from the message id', async () => {
    const q = uniqueQueue('n');
    const msgs = Array.from({ length: 100 }, () => statusMessage());
    await publish(q, msgs);
    const e = await start(q);
    const hub = e.sandbox.eventhub;
    await until(() => hub.events({ type: TYPE }).length >= 100, 20_000, '100 events');
    await new Promise((r) => setTimeout(r, 300));
    const events = hub.events({ type: TYPE });
    expect(events.length).toBe(100);
    const byRef = new Map(events.map((ev) => [(ev.data as any).bankReferenceId, ev]));
    for (const m of msgs) {
      const b = bodyOf(m);
      const ev = byRef.get(b.paymentOrderId)!;
      expect(ev, b.paymentOrderId).toBeDefined();
      expect(ev.id).toBe(stableId(TYPE, m.message_id));
      expect(ev).toMatchObject({
        source: 'com.platform.payments',
        topic: 'payment-status',
        dataversion: '1.0.0',
        subject: b.paymentOrderId,
      });
      expect(ev.data).toEqual({
        bankReferenceId: b.paymentOrderId,
        endToEndReference: b.endToEndReference,
        bankStatus: b.status,
        reasonCode: b.statusReasonCode,
        reasonText: b.statusReasonCode === 'AC04' ? 'Closed account number' : null,
        statusDateTime: b.statusDateTime,
      });
    }
    await e.close();
    engine = undefined;
    expect(await drain(q)).toEqual([]); // every message was accepted
  }, 40_000);

  it('loses nothing while the event hub answers 503 for a while, and publishes all once it recovers', async () => {
    const q = uniqueQueue('503');
    const { logger, lines } = captureLogs();
    // one in-route retry, then the broker redelivers
    const e = await start(q, { 'redelivery.maximumRetries': '1' }, logger);
    const hub = e.sandbox.eventhub;
    hub.server.addFault({ method: 'POST', path: '^/events$', status: 503 });
    const msgs = Array.from({ length: 20 }, () => statusMessage());
    await publish(q, msgs);
    const outage = Date.now();
    await until(
      () => lines.filter((l) => l.msg?.startsWith('message released')).length >= 4,
      10_000,
      'releases during the outage',
    );
    await new Promise((r) => setTimeout(r, Math.max(0, 2500 - (Date.now() - outage))));
    expect(hub.events({ type: TYPE }).length).toBe(0);
    hub.server.clearFaults();
    await until(() => hub.events({ type: TYPE, distinct: true }).length === 20, 25_000, 'all 20 events after recovery');
    const ids = new Set(hub.events({ type: TYPE }).map((ev) => ev.id));
    expect([...ids].sort()).toEqual(msgs.map((m) => stableId(TYPE, m.message_id)).sort());
    const released = lines.find((l) => l.msg?.startsWith('message released'));
    expect(released).toMatchObject({
      level: 'warn',
      queue: q,
      messageId: expect.stringMatching(/^msg-/),
      reason: expect.stringContaining('503'),
    });
    await e.close();
    engine = undefined;
    expect(await drain(q)).toEqual([]);
  }, 50_000);

  it('retries inside the route first (retryFlag, redelivery.maximumRetries): no redelivery needed', async () => {
    const q = uniqueQueue('retry');
    const { logger, lines } = captureLogs();
    const e = await start(q, { 'source.concurrent.threads': '1' }, logger);
    e.sandbox.eventhub.server.addFault({ method: 'POST', path: '^/events$', status: 503, times: 2 });
    const m = statusMessage();
    await publish(q, [m]);
    await e.sandbox.eventhub.waitFor((ev) => ev.id === stableId(TYPE, m.message_id), 10_000);
    expect(lines.filter((l) => l.msg === 'retrying event publication').length).toBe(2);
    expect(lines.some((l) => l.msg?.startsWith('message released'))).toBe(false);
  }, 30_000);

  it('rejects a malformed message with its id and the reason in the log, and goes on with the others', async () => {
    const q = uniqueQueue('bad');
    const { logger, lines, text } = captureLogs();
    const good = Array.from({ length: 6 }, () => statusMessage());
    const notJson = {
      message_id: 'bad-not-json',
      content_type: 'application/json',
      body: '{"paymentOrderId": "PO1", status:',
    };
    const wrong = statusMessage({ status: 'SETTLED_MAYBE', paymentOrderId: 'PO-BAD-STATUS' }, 'bad-schema');
    // a data section (binary body, as a JMS BytesMessage) holding no JSON
    const binary = { message_id: 'bad-binary', body: rhea.message.data_section(Buffer.from([0xff, 0xfe, 0x00])) };
    await publish(q, [good[0]!, notJson, good[1]!, good[2]!, wrong, good[3]!, binary, good[4]!, good[5]!]);
    const e = await start(q, {}, logger);
    const hub = e.sandbox.eventhub;
    await until(
      () =>
        hub.events({ type: TYPE }).length >= 6 &&
        lines.filter((l) => l.msg?.startsWith('message rejected')).length >= 3,
      15_000,
      '6 events and 3 rejections',
    );
    expect(new Set(hub.events({ type: TYPE }).map((ev) => (ev.data as any).bankReferenceId))).toEqual(
      new Set(good.map((g) => bodyOf(g).paymentOrderId)),
    );
    const rejected = lines.filter((l) => l.msg?.startsWith('message rejected'));
    expect(rejected.map((l) => l.messageId).sort()).toEqual(['bad-binary', 'bad-not-json', 'bad-schema']);
    for (const l of rejected) expect(l).toMatchObject({ level: 'error', queue: q, route: ROUTE });
    expect(rejected.find((l) => l.messageId === 'bad-not-json')!.reason).toMatch(/^body is not JSON/);
    expect(rejected.find((l) => l.messageId === 'bad-schema')!.reason).toMatch(
      /validation: .*\/status: must be one of/,
    );
    expect(text()).not.toContain(BROKER_PASSWORD === 'guest' ? 'password":"guest' : BROKER_PASSWORD);
    // each was recorded as a failed exchange before it was rejected, with its body as received
    const store = await durableStoreFor(e.services);
    const recs = (await store.listFailed({ route: ROUTE })).filter((r) => r.context.queue === q);
    expect(recs.map((r) => r.context.messageId).sort()).toEqual(['bad-binary', 'bad-not-json', 'bad-schema']);
    expect(recs.find((r) => r.context.messageId === 'bad-not-json')!.body).toBe(notJson.body);
    // PostgreSQL text holds no NUL: a binary body's bytes that are no UTF-8 text are kept as U+FFFD
    expect(recs.find((r) => r.context.messageId === 'bad-binary')!.body).toBe('\uFFFD\uFFFD\uFFFD');
    await e.close();
    engine = undefined;
    expect(await drain(q)).toEqual([]); // rejected, not requeued
  }, 40_000);

  it('honours source.concurrent.threads: never more messages in flight than consumers', async () => {
    const q = uniqueQueue('conc');
    const sink = await startCountingSink(150);
    closers.push(() => sink.close());
    await publish(
      q,
      Array.from({ length: 18 }, () => statusMessage()),
    );
    await start(q, { 'source.concurrent.threads': '3', 'asb.producer.apiUri': sink.url });
    await until(() => sink.events.length === 18, 20_000, '18 events');
    expect(sink.maxInFlight).toBe(3);
  }, 30_000);

  it('with one consumer handles one message at a time', async () => {
    const q = uniqueQueue('one');
    const sink = await startCountingSink(60);
    closers.push(() => sink.close());
    await publish(
      q,
      Array.from({ length: 8 }, () => statusMessage()),
    );
    await start(q, { 'source.concurrent.threads': '1', 'asb.producer.apiUri': sink.url });
    await until(() => sink.events.length === 8, 20_000, '8 events');
    expect(sink.maxInFlight).toBe(1);
  }, 30_000);
});
