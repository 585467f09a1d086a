// Failed AMQP messages are kept with their cause (issue 26 section 2), on the real RabbitMQ (AMQP
// 1.0) and PostgreSQL (a schema of its own, dropped after): a message that is not JSON or breaks
// the schema is recorded with its body, headers and context and the queue drains; a poison message
// is recorded at its max-deliveries'th delivery and rejected; an event hub outage is not poison;
// the log line and the metrics say so; no credential header is kept.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { durableStoreFor } from '../../engine/store/durable-for.ts';
import type { DurableStore } from '../../engine/store/durable.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  captureLogs,
  drain,
  openConnection,
  publish,
  startCountingSink,
  uniqueQueue,
  until,
  type CountingSink,
} from '../hubvendor-payment-inbound/helpers.ts';
import { PG_URL, dropSchema, uniqueSchema } from './helpers.ts';

const Q_IN = uniqueQueue('rec-in');
const Q_POISON = uniqueQueue('rec-poison');
const Q_OUTAGE = uniqueQueue('rec-outage');
const Q_ATMOST = uniqueQueue('rec-atmost');
const SCHEMA = uniqueSchema('rec_amqp');
const EVENT = 'com.example.test.v1.Thing';

const amqpFrom = (id: string, queue: string, extra = '') => `id: ${id}
values: demo
from:
  amqp:
    url: "{{amqp.url}}"
    username: "{{amqp.username}}"
    password: "{{amqp.password}}"
    mapping: "${queue}>${id}"
    release-backoff: { delay: 20, max-delay: 100 }
${extra}`;

let engine: RunningEngine;
let sink: CountingSink;
let outageSink: CountingSink;
let vendor: Server;
let vendorCalls = 0;
let store: DurableStore;
const logs = captureLogs();

beforeAll(async () => {
  (await openConnection()).close();
  sink = await startCountingSink();
  outageSink = await startCountingSink();
  outageSink.failWith = 503;
  // a vendor that is always down: every delivery of a message calling it fails transiently
  vendor = createServer((req, res) => {
    vendorCalls++;
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"maintenance"}');
  });
  await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
  const vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/things`;
  const root = tmpProject({
    'values/demo.values.yaml': [
      `amqp.url: ${BROKER_URL}`,
      `amqp.username: ${BROKER_USER}`,
      `amqp.password: ${BROKER_PASSWORD}`,
      `sink.url: ${sink.url}`,
      `outage.url: ${outageSink.url}`,
      `vendor.url: ${vendorUrl}`,
      '',
    ].join('\n'),
    'values/environments/test.yaml': `engine:\n  store:\n    postgres:\n      url: ${PG_URL}\n      schema: ${SCHEMA}\n`,
    'routes/inbound.yaml': `${amqpFrom('rec-inbound', Q_IN)}steps:
  - validate:
      schema: { type: object, required: [n], properties: { n: { type: integer } } }
  - to-eventhub:
      url: "{{sink.url}}"
      type: ${EVENT}
      source: test
`,
    'routes/poison.yaml': `${amqpFrom('rec-poison', Q_POISON, '    max-deliveries: 3\n')}steps:
  - to-http:
      name: vendor
      method: POST
      url: "{{vendor.url}}"
`,
    'routes/atmost.yaml': `${amqpFrom('rec-atmost', Q_ATMOST, '    transacted: false\n')}steps:
  - to-http:
      name: vendor
      method: POST
      url: "{{vendor.url}}"
`,
    'routes/outage.yaml': `${amqpFrom('rec-outage', Q_OUTAGE, '    max-deliveries: 2\n')}steps:
  - to-eventhub:
      url: "{{outage.url}}"
      type: ${EVENT}
      source: test
`,
  });
  engine = await startEngine({
    routes: ['routes'],
    root,
    env: 'test',
    port: 0,
    logger: logs.logger,
    shutdownTimeoutMs: 2000,
    processEnv: {},
  });
  await until(() => logs.lines.filter((l) => l.msg === 'AMQP connected').length === 4, 10_000, 'four consumers');
  store = await durableStoreFor(engine.services);
});

afterAll(async () => {
  await engine?.close();
  await sink?.close();
  await outageSink?.close();
  await new Promise((r) => vendor?.close(r));
  await dropSchema(SCHEMA);
});

const recordedLines = () => logs.lines.filter((l) => /^failed exchange \S+ recorded/.test(l.msg ?? ''));

describe('failed AMQP messages', () => {
  it('records a message that is not JSON and one that breaks the schema, with body, headers and context; the queue drains', async () => {
    await publish(Q_IN, [
      { message_id: 'good-1', content_type: 'application/json', body: '{"n":1}' },
      {
        message_id: 'bad-json',
        correlation_id: 'corr-bad-json',
        subject: 'things',
        content_type: 'application/json',
        application_properties: {
          Tenant: 'acme',
          Authorization: 'Bearer sekret-token-123456',
          'X-Api-Key': 'k-1234567',
        },
        body: '{"n": 1,',
      },
      {
        message_id: 'bad-schema',
        content_type: 'application/json',
        application_properties: { tenant: 'acme' },
        body: '{"n":"one"}',
      },
      { message_id: 'good-2', content_type: 'application/json', body: '{"n":2}' },
    ]);
    await until(async () => (await store.countFailed({ route: 'rec-inbound' })) === 2, 15_000, 'two records');
    await until(() => sink.events.length === 2, 5000, 'two events');
    const [notJson] = await store
      .listFailed({ route: 'rec-inbound', code: 'GC025', limit: 10 })
      .then((rs) => rs.filter((r) => r.context.messageId === 'bad-json'));
    expect(notJson).toMatchObject({
      route: 'rec-inbound',
      source: 'amqp',
      status: 'open',
      code: 'GC025',
      body: '{"n": 1,',
      headers: { tenant: 'acme', 'content-type': 'application/json' },
      context: {
        messageId: 'bad-json',
        queue: Q_IN,
        subject: 'things',
        contentType: 'application/json',
        correlationId: 'corr-bad-json',
        content: 'json',
      },
      attempts: 1,
      correlationId: 'corr-bad-json',
    });
    expect(notJson!.routeVersion).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(notJson!.detail).toMatch(/^body is not JSON/);
    expect(notJson!.cause).toMatch(/^validation: body is not JSON/);
    // credentials never reach a record
    expect(Object.keys(notJson!.headers)).not.toContain('authorization');
    expect(Object.keys(notJson!.headers)).not.toContain('x-api-key');
    expect(JSON.stringify(notJson)).not.toContain('sekret-token');

    const [schema] = (await store.listFailed({ route: 'rec-inbound' })).filter(
      (r) => r.context.messageId === 'bad-schema',
    );
    expect(schema).toMatchObject({ body: '{"n":"one"}', headers: { tenant: 'acme' }, code: 'GC025' });
    expect(schema!.cause).toMatch(/\/n: must be of type integer/);

    // one error line per record, naming the record, the route and the code
    const lines = recordedLines().filter((l) => l.route === 'rec-inbound');
    expect(lines.map((l) => l.failedId).sort()).toEqual([notJson!.id, schema!.id].sort());
    for (const l of lines) expect(l).toMatchObject({ level: 'error', code: 'GC025', source: 'amqp' });
    // rejected after recording: nothing left in the queue
    expect(await drain(Q_IN)).toEqual([]);
  }, 30_000);

  it('records a poison message at its max-deliveries th delivery and rejects it', async () => {
    await publish(Q_POISON, [{ message_id: 'poison-1', content_type: 'application/json', body: '{"n":7}' }]);
    await until(async () => (await store.countFailed({ route: 'rec-poison' })) === 1, 15_000, 'the poison record');
    const [rec] = await store.listFailed({ route: 'rec-poison' });
    expect(rec).toMatchObject({ source: 'amqp', code: 'GC027', attempts: 3, body: '{"n":7}' });
    expect(rec!.context.messageId).toBe('poison-1');
    expect(rec!.cause).toMatch(/vendor status 503/);
    expect(rec!.firstAt.getTime()).toBeLessThan(rec!.lastAt.getTime());
    expect(vendorCalls).toBe(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(vendorCalls).toBe(3); // rejected: never delivered again
    expect(await drain(Q_POISON)).toEqual([]);
    const rejected = logs.lines.find((l) => l.route === 'rec-poison' && l.msg?.startsWith('message rejected'));
    expect(rejected?.reason).toMatch(/^poison message: failed on each of 3 deliveries/);
  }, 30_000);

  it('does not count releases while the event hub is down as poison deliveries', async () => {
    await publish(Q_OUTAGE, [{ message_id: 'outage-1', content_type: 'application/json', body: '{"n":9}' }]);
    // far more deliveries than max-deliveries (2): still released, nothing recorded
    await until(
      () => logs.lines.filter((l) => l.route === 'rec-outage' && l.msg?.startsWith('message released')).length >= 6,
      15_000,
      'six releases during the outage',
    );
    expect(await store.countFailed({ route: 'rec-outage' })).toBe(0);
    // the event hub comes back: the message goes through
    outageSink.failWith = undefined;
    await until(() => outageSink.events.length === 1, 10_000, 'the event after the outage');
    expect(await store.countFailed({ route: 'rec-outage' })).toBe(0);
  }, 30_000);

  it('with transacted: false records any failure: the message was accepted on arrival', async () => {
    const before = vendorCalls;
    await publish(Q_ATMOST, [{ message_id: 'atmost-1', content_type: 'application/json', body: '{"n":3}' }]);
    await until(async () => (await store.countFailed({ route: 'rec-atmost' })) === 1, 10_000, 'the record');
    const [rec] = await store.listFailed({ route: 'rec-atmost' });
    expect(rec).toMatchObject({ source: 'amqp', code: 'GC027', attempts: 1, body: '{"n":3}' });
    expect(vendorCalls - before).toBe(1); // never redelivered
    expect(await drain(Q_ATMOST)).toEqual([]);
  }, 20_000);

  it('counts records per route and code, and the open records in a gauge', async () => {
    const res = await fetch(`${engine.url}/metrics`);
    const text = await res.text();
    expect(text).toContain('engine_failed_exchanges_total{route="rec-inbound",code="GC025"} 2');
    expect(text).toContain('engine_failed_exchanges_total{route="rec-poison",code="GC027"} 1');
    expect(text).toMatch(/^engine_failed_exchanges_open 4$/m);
    // an operator discards one: the next scrape counts it
    const [one] = await store.listFailed({ route: 'rec-poison' });
    await store.discard(one!.id, 'test');
    expect(await (await fetch(`${engine.url}/metrics`)).text()).toMatch(/^engine_failed_exchanges_open 3$/m);
  });
});

describe('a failed message while the store is down', () => {
  it('is released instead of rejected, logged, and stays in the queue', async () => {
    const q = uniqueQueue('rec-down');
    const down = captureLogs();
    const root = tmpProject({
      'values/demo.values.yaml': `amqp.url: ${BROKER_URL}\namqp.username: ${BROKER_USER}\namqp.password: ${BROKER_PASSWORD}\n`,
      // nothing listens on port 1: the store cannot be reached
      'values/environments/test.yaml': `engine:\n  store:\n    postgres:\n      url: postgres://postgres@127.0.0.1:1/test\n      schema: ${SCHEMA}\n`,
      'routes/inbound.yaml': `${amqpFrom('rec-down', q)}steps:
  - log: { message: got it }
`,
    });
    const e = await startEngine({
      routes: ['routes'],
      root,
      env: 'test',
      port: 0,
      logger: down.logger,
      shutdownTimeoutMs: 2000,
      processEnv: {},
    });
    try {
      await publish(q, [{ message_id: 'not-json-down', content_type: 'application/json', body: 'nope' }]);
      await until(
        () => down.lines.filter((l) => l.msg?.startsWith('message released')).length >= 2,
        10_000,
        'releases while the store is down',
      );
      const line = down.lines.find((l) => /could not be recorded/.test(l.msg ?? ''));
      expect(line).toMatchObject({ level: 'error', messageId: 'not-json-down' });
      expect(down.lines.some((l) => l.msg?.startsWith('message rejected'))).toBe(false);
    } finally {
      await e.close();
    }
    // the message was never rejected: the broker still holds it
    const left = await drain(q);
    expect(left.map((m) => m.message_id)).toEqual(['not-json-down']);
  }, 30_000);
});
