// The outbox publisher on PostgreSQL: two publishers (two replicas' stores on one schema) drain one
// outbox together, each event reaching the event hub once and the events of one key in order of
// arrival; while the hub is down the rows stay and the publisher backs off, logging once.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import type { DurableStore } from '../../engine/store/durable.ts';
import { HttpClients } from '../../engine/outbound/http-client.ts';
import { Metrics } from '../../engine/observability/metrics.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { OutboxPublisher } from '../../engine/outbox/publisher.ts';
import { countEntries, insertEntry } from '../../engine/outbox/outbox-sql.ts';
import { DEFAULT_TIMEOUTS } from '../../engine/outbound/http-client.ts';
import { PG_URL, dropSchema, uniqueSchema } from '../store/helpers.ts';
import { startHub, until } from './helpers.ts';

const PUBLISHER_PROCESS = fileURLToPath(new URL('./publisher-process.ts', import.meta.url));
const schema = uniqueSchema('outbox2');
const NO_RETRY = { enabled: false, maxRetries: 0, delay: 10, multiplier: 2, statuses: [] };
const stores: DurableStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  await dropSchema(schema);
});

it('two publishers on one schema publish each event once, in order of arrival per key', async () => {
  const hub = await startHub(200);
  // each answer takes a little while, and there are more order keys (30) than a batch takes (10):
  // a publisher claims only the oldest row of a key, so with fewer keys than a batch one publisher
  // held every key's head while the other found nothing to claim (CI met that)
  hub.delayMs = 15;
  const a = await openPostgresStore({ url: PG_URL, schema, poolSize: 3 });
  const b = await openPostgresStore({ url: PG_URL, schema, poolSize: 3 });
  stores.push(a, b);
  const N = 300;
  const KEYS = 30;
  for (let i = 0; i < N; i++) {
    const id = `ev-${i}`;
    const inserted = await insertEntry(a.sql, {
      route: 'hook',
      dedupeKey: id,
      orderKey: `key-${i % KEYS}`,
      eventId: id,
      eventType: 't',
      url: hub.url,
      headers: { 'content-type': 'application/cloudevents+json' },
      event: JSON.stringify({ id, subject: `key-${i % KEYS}`, data: { n: i } }),
      inputHeaders: {},
      inputContext: {},
    });
    expect(inserted).toBe(true);
  }
  // the same route, dedupe key and event id again: the row is the dedupe mark
  expect(
    await insertEntry(b.sql, {
      route: 'hook',
      dedupeKey: 'ev-0',
      orderKey: 'x',
      eventId: 'ev-0',
      eventType: 't',
      url: hub.url,
      headers: {},
      event: '{}',
      inputHeaders: {},
      inputContext: {},
    }),
  ).toBe(false);
  const log = createLogger('silent');
  const target = {
    timeouts: DEFAULT_TIMEOUTS,
    retry: { enabled: false, maxRetries: 0, delay: 10, multiplier: 2, statuses: [] },
  };
  const metrics = [new Metrics(false), new Metrics(false)];
  const publishers = [a, b].map((s, i) => {
    const p = new OutboxPublisher(s, new HttpClients(), metrics[i], log, { batch: 10, pollMs: 20 });
    p.routes.set('hook', target);
    return p;
  });
  try {
    publishers.forEach((p) => p.start());
    await until(async () => (await countEntries(a.sql)) === 0, 30_000);
  } finally {
    await Promise.all(publishers.map((p) => p.stop()));
    await hub.close();
  }
  // both took part
  for (const m of metrics) {
    const n = Number(/engine_outbox_published_total\{route="hook"\} (\d+)/.exec(await m.registry.metrics())?.[1]);
    expect(n).toBeGreaterThan(0);
  }
  const ids = hub.events.map((e) => e.id);
  expect(ids).toHaveLength(N);
  expect(new Set(ids).size).toBe(N);
  for (let k = 0; k < KEYS; k++) {
    const order = hub.events.filter((e) => e.subject === `key-${k}`).map((e) => e.data.n);
    expect(order).toEqual([...order].sort((x, y) => x - y));
  }
});

it('while the hub is down: rows stay, attempts grow with backoff, one log line when failing and one on recovery', async () => {
  const hub = await startHub(503);
  const store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
  stores.push(store);
  for (let i = 0; i < 5; i++)
    await insertEntry(store.sql, {
      route: 'down',
      dedupeKey: `down-${i}`,
      orderKey: `down-${i}`,
      eventId: `down-${i}`,
      eventType: 't',
      url: hub.url,
      headers: {},
      event: JSON.stringify({ id: `down-${i}` }),
      inputHeaders: {},
      inputContext: {},
    });
  const lines: { msg: string }[] = [];
  const log = createLogger('info', { write: (s: string) => void lines.push(JSON.parse(s)) });
  const p = new OutboxPublisher(store, new HttpClients(), new Metrics(false), log, {
    pollMs: 10,
    backoffMs: 20,
    maxBackoffMs: 80,
  });
  p.routes.set('down', { timeouts: DEFAULT_TIMEOUTS, retry: NO_RETRY });
  try {
    p.start();
    await until(() => hub.posts >= 25);
    const { rows } = await store.sql.query("SELECT min(attempts)::int AS a FROM outbox WHERE route = 'down'");
    expect(Number(rows[0].a)).toBeGreaterThanOrEqual(3);
    expect(lines.map((l) => l.msg)).toEqual(['outbox: the event hub does not accept events; they wait in the outbox']);
    hub.status = 200;
    // the line comes after the batch that published them
    await until(async () => (await countEntries(store.sql)) === 0 && hub.events.length >= 5 && lines.length > 1);
    expect(lines.map((l) => l.msg)).toEqual([
      'outbox: the event hub does not accept events; they wait in the outbox',
      'outbox: publishing to the event hub again',
    ]);
  } finally {
    await p.stop();
    await hub.close();
  }
});

it('a replica SIGKILLed mid-batch: its transaction rolls back and another replica publishes its rows', async () => {
  const hub = await startHub(0);
  const store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
  stores.push(store);
  for (let i = 0; i < 20; i++)
    await insertEntry(store.sql, {
      route: 'hook',
      dedupeKey: `kill-${i}`,
      orderKey: `kill-${i % 4}`,
      eventId: `kill-${i}`,
      eventType: 't',
      url: hub.url,
      headers: {},
      event: JSON.stringify({ id: `kill-${i}`, subject: `kill-${i % 4}`, data: { n: i } }),
      inputHeaders: {},
      inputContext: {},
    });
  const child = spawn(process.execPath, ['--import', 'tsx', PUBLISHER_PROCESS, PG_URL, schema], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const publisher = new OutboxPublisher(store, new HttpClients(), new Metrics(false), createLogger('silent'), {
    pollMs: 20,
  });
  publisher.routes.set('hook', { timeouts: DEFAULT_TIMEOUTS, retry: NO_RETRY });
  try {
    // the child holds a batch: one row per key, its calls hanging at the hub
    await until(() => hub.posts >= 4, 30_000);
    child.kill('SIGKILL');
    await once(child, 'exit');
    hub.status = 200;
    publisher.start();
    await until(async () => (await countEntries(store.sql)) === 0, 30_000);
  } finally {
    child.kill('SIGKILL');
    await publisher.stop();
    await hub.close();
  }
  const ids = hub.events.map((e) => e.id);
  expect(new Set(ids).size).toBe(20);
  expect(ids).toHaveLength(20);
  for (let k = 0; k < 4; k++) {
    const order = hub.events.filter((e) => e.subject === `kill-${k}`).map((e) => e.data.n);
    expect(order).toEqual([...order].sort((x, y) => x - y));
  }
});
