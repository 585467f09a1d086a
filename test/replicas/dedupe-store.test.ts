// Webhook dedupe through the shared store (real Redis on 127.0.0.1:6379): the claim protocol
// between two stores (two replicas), the route's answers while another replica holds a key, and
// the outage policy (503 with Retry-After, nothing published) when Redis cannot be reached.

import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { RedisStore } from '../../engine/store/store-redis.ts';
import type { ClaimSet } from '../../engine/store/store.ts';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { captureLogs } from '../hubvendor-payment-inbound/helpers.ts';
import { REDIS_URL, deleteKeys, signedWebhook, uniquePrefix, valuesWithStore } from './helpers.ts';

const silent = pino({ level: 'silent' });
const ROUTES = ['routes/achvendor-batch-payment-inbound'];
const STATUS_PATH = '/webhooks/batch/statusupdate';
const statusBody = (batch: string) => ({
  event_type: 'BATCH_STATUS_UPDATE',
  batch_id: batch,
  status: 'SUBMITTED',
  updated_at: '2026-01-01T00:00:00Z',
});

describe('the Redis claim set shared by two replicas', () => {
  const prefix = uniquePrefix('claims');
  const opts = { namespace: 'r', ttlMs: 60_000, maxKeys: 10 };
  let a: RedisStore;
  let b: RedisStore;
  let ca: ClaimSet;
  let cb: ClaimSet;
  beforeAll(() => {
    // in-flight timeout 300 ms: a dead replica's claim frees quickly
    a = new RedisStore({ url: REDIS_URL, prefix, commandTimeout: 2000 }, 300, silent);
    b = new RedisStore({ url: REDIS_URL, prefix, commandTimeout: 2000 }, 300, silent);
    ca = a.claims(opts);
    cb = b.claims(opts);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await deleteKeys(prefix);
  });

  it('one claim at a time; done once completed; free again once released', async () => {
    const first = await ca.claim('k1');
    expect(first.state).toBe('claimed');
    expect(await cb.claim('k1')).toEqual({ state: 'busy' });
    await ca.complete('k1', (first as { token: string }).token);
    expect(await cb.claim('k1')).toEqual({ state: 'done' });

    const held = await cb.claim('k2');
    expect(held.state).toBe('claimed');
    // only the claimant's token releases it
    await ca.release('k2', 'c-not-the-token');
    expect(await ca.claim('k2')).toEqual({ state: 'busy' });
    await cb.release('k2', (held as { token: string }).token);
    expect((await ca.claim('k2')).state).toBe('claimed');
  });

  it("a dead replica's claim expires after the in-flight timeout", async () => {
    expect((await ca.claim('k3')).state).toBe('claimed');
    // replica A "dies": it neither completes nor releases
    await new Promise((r) => setTimeout(r, 400));
    expect((await cb.claim('k3')).state).toBe('claimed');
  });
});

describe('the dedupe step with the store in Redis', () => {
  const prefix = uniquePrefix('dedupe');
  let values: ReturnType<typeof valuesWithStore>;
  let engine: TestEngine;
  let other: RedisStore;
  beforeAll(async () => {
    values = valuesWithStore({ redis: { url: REDIS_URL, prefix }, inFlightTimeout: 30_000 });
    engine = await startTestEngine({ routes: ROUTES, valuesDir: values.dir, extensions: [] });
    other = new RedisStore({ url: REDIS_URL, prefix, commandTimeout: 2000 }, 30_000, silent);
  });
  afterAll(async () => {
    await engine?.close();
    await other?.close();
    await deleteKeys(prefix);
    values?.remove();
  });
  const events = (batch: string) => engine.sandbox.eventhub.events().filter((e: any) => e.data.batch_id === batch);

  it('a key another replica holds in flight: 409 with Retry-After; once it completed: duplicate, nothing published', async () => {
    const id = `msg_${prefix}held`;
    const claims = other.claims({ namespace: 'batch-status-update', ttlMs: 60_000, maxKeys: 10 });
    const held = await claims.claim(id);
    expect(held.state).toBe('claimed');
    const w = signedWebhook(statusBody('ACHB-HELD'), id);
    const busy = await engine.request('POST', STATUS_PATH, w.raw, w.headers);
    expect(busy.status).toBe(409);
    expect(busy.headers.get('retry-after')).toBe('5');
    await claims.complete(id, (held as { token: string }).token);
    const dup = await engine.request('POST', STATUS_PATH, w.raw, w.headers);
    expect(dup.body).toEqual({ status: 'duplicate' });
    expect(events('ACHB-HELD')).toHaveLength(0);
  });

  it('the key is written to Redis once the exchange succeeded, so another replica sees a duplicate', async () => {
    const id = `msg_${prefix}done`;
    const w = signedWebhook(statusBody('ACHB-DONE'), id);
    expect((await engine.request('POST', STATUS_PATH, w.raw, w.headers)).status).toBe(200);
    expect(events('ACHB-DONE')).toHaveLength(1);
    const claims = other.claims({ namespace: 'batch-status-update', ttlMs: 60_000, maxKeys: 10 });
    await expect.poll(() => claims.claim(id), { timeout: 5000 }).toEqual({ state: 'done' });
  });

  it('a failed exchange gives its claim back: the redelivery is processed', async () => {
    const id = `msg_${prefix}fail`;
    const w = signedWebhook(statusBody('ACHB-FAIL'), id);
    // down through every retry of the route's event hub client
    engine.sandbox.eventhub.server.addFault({ method: 'POST', path: '^/events$', status: 503, times: 1000 });
    expect((await engine.request('POST', STATUS_PATH, w.raw, w.headers)).status).toBe(503);
    engine.sandbox.eventhub.server.clearFaults();
    await expect
      .poll(async () => (await engine.request('POST', STATUS_PATH, w.raw, w.headers)).status, { timeout: 5000 })
      .toBe(200);
    expect(events('ACHB-FAIL')).toHaveLength(1);
  });
});

describe('Redis unreachable', () => {
  let dead: Server;
  let engine: TestEngine;
  const logs = captureLogs();
  beforeAll(async () => {
    // a port that accepts and drops every connection: Redis "down" without waiting for a timeout
    dead = createServer((s) => s.destroy());
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as { port: number }).port;
    // the URL with its password comes from the process environment, as from a Kubernetes secret
    process.env.ENGINE_STORE_REDIS_URL = `redis://:s3cret-pw@127.0.0.1:${port}`;
    try {
      engine = await startTestEngine({ routes: ROUTES, extensions: [], logger: logs.logger });
    } finally {
      delete process.env.ENGINE_STORE_REDIS_URL;
    }
  });
  afterAll(async () => {
    await engine?.close();
    await new Promise((r) => dead.close(r));
  });

  it('dedupe fails closed: 503 with Retry-After, nothing published; the password is in no answer or log', async () => {
    const w = signedWebhook(statusBody('ACHB-DOWN'), 'msg_down_1');
    const r = await engine.request('POST', STATUS_PATH, w.raw, w.headers);
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(r.body.detail).toMatch(/deduplication store unavailable/);
    expect(engine.sandbox.eventhub.events().filter((e: any) => e.data.batch_id === 'ACHB-DOWN')).toHaveLength(0);
    expect(logs.lines.some((l) => l.level === 'warn' && /store: Redis unavailable/.test(l.msg))).toBe(true);
    expect(JSON.stringify(r.body) + logs.text()).not.toContain('s3cret-pw');
  });
});
