// Webhooks accepted through the outbox, on a running engine over real sockets, with the embedded
// store (PGlite in the project's folder) and with PostgreSQL (a schema of its own, dropped after):
// answered 2xx while the event hub stand-in answers 503, then every event published in order of
// arrival per key once it recovers; a redelivery while the event waits is a duplicate; a permanent
// refusal becomes a failed exchange; `outbox: false` publishes during the request as before.

import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { RunningEngine } from '../../engine/engine.ts';
import { durableStoreFor } from '../../engine/store/durable-for.ts';
import { countEntries } from '../../engine/outbox/outbox-sql.ts';
import { replayOne } from '../../engine/store/replay.ts';
import { dropSchema, uniqueSchema } from '../store/helpers.ts';
import { deliver, startHub, startWebhookEngine, until, webhookProject, type Hub } from './helpers.ts';

// PGlite's first open of a folder takes 5-10 s on a loaded 2-core machine
vi.setConfig({ testTimeout: 60_000 });

let engine: RunningEngine | undefined;
let hub: Hub | undefined;
const schemas: string[] = [];
afterEach(async () => {
  await engine?.close();
  await hub?.close();
  engine = hub = undefined;
});
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

const pending = async (e: RunningEngine) => countEntries((await durableStoreFor(e.services)).sql);

for (const store of ['embedded', 'postgres'] as const) {
  const project = (h: Hub, outbox?: boolean) => {
    if (store === 'embedded') return webhookProject(h.url, outbox);
    const schema = uniqueSchema('outbox');
    schemas.push(schema);
    return webhookProject(h.url, outbox, { schema });
  };

  describe(`outbox on the ${store} store`, () => {
    it('accepts webhooks while the event hub answers 503, then publishes all in order of arrival per key', async () => {
      hub = await startHub(503);
      engine = await startWebhookEngine(project(hub));
      // the store opens at start, not on the first webhook; the replica is ready once it is open
      const ready = () => fetch(`${engine!.url}/health/ready`).then((r) => r.json());
      expect((await ready()).checks).toHaveProperty('outbox');
      await until(async () => (await ready()).checks.outbox === true);
      const sent: string[] = [];
      for (let i = 0; i < 12; i++) {
        const id = `wh-${store}-${i}`;
        const r = await deliver(engine, id, `case-${i % 3}`, { n: i });
        expect(r).toEqual({ status: 200, body: { status: 'accepted', eventId: id } });
        sent.push(id);
      }
      await until(() => hub!.posts > 0);
      expect(hub.events).toEqual([]);
      expect(await pending(engine)).toBe(12);
      // the waiting rows keep the webhooks' inputs without a credential header
      const rows = await (await durableStoreFor(engine.services)).sql.query('SELECT input_headers FROM outbox');
      expect(rows.rows).toHaveLength(12);
      for (const r of rows.rows)
        expect(JSON.stringify(r.input_headers)).not.toMatch(/secret-token-123|sess-secret-999/);
      hub.status = 200;
      await until(() => hub!.events.length === 12);
      expect(new Set(hub.events.map((e) => e.id))).toEqual(new Set(sent));
      for (const key of ['case-0', 'case-1', 'case-2']) {
        const order = hub.events.filter((e) => e.subject === key).map((e) => e.data.n);
        expect(order).toEqual([...order].sort((a, b) => a - b));
        expect(order).toHaveLength(4);
      }
      await until(async () => (await pending(engine!)) === 0);
      const metrics = () => fetch(`${engine!.url}/metrics`).then((r) => r.text());
      expect(await metrics()).toMatch(/engine_outbox_published_total\{route="hook"\} 12/);
      // the gauge is the count after the publisher's last batch
      await until(async () => /engine_outbox_pending 0/.test(await metrics()));
    });

    it('answers a webhook redelivered after a restart, while its event waits in the outbox, as a duplicate: one event', async () => {
      hub = await startHub(503);
      const root = project(hub);
      engine = await startWebhookEngine(root);
      expect((await deliver(engine, 'dup-1', 'k')).status).toBe(200);
      // a new engine on the same store: the in-memory dedupe mark is gone, as after a crash
      await engine.close();
      engine = await startWebhookEngine(root);
      const again = await deliver(engine, 'dup-1', 'k');
      expect(again).toEqual({ status: 200, body: { status: 'duplicate' } });
      expect(await pending(engine)).toBe(1);
      hub.status = 200;
      await until(async () => (await pending(engine!)) === 0);
      expect(hub.events.map((e) => e.id)).toEqual(['dup-1']);
    });

    it('keeps every event of one webhook (one per split item) under its one dedupe key, in order', async () => {
      hub = await startHub(200);
      engine = await startWebhookEngine(project(hub));
      const res = await fetch(`${engine.url}/split`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': 'split-1' },
        body: JSON.stringify({ items: [1, 2, 3] }),
      });
      expect(await res.json()).toEqual({ status: 'accepted' });
      await until(() => hub!.events.length === 3);
      expect(hub.events.map((e) => e.id)).toEqual(['item-1', 'item-2', 'item-3']);
    });

    it('moves an event the hub refuses for good (422) to failed exchanges, with the webhook as received', async () => {
      hub = await startHub(422);
      engine = await startWebhookEngine(project(hub));
      expect((await deliver(engine, 'bad-1', 'k', { amount: 'x' })).status).toBe(200);
      const durable = await durableStoreFor(engine.services);
      // recorded, then the row deleted when the batch commits (PostgreSQL)
      await until(async () => (await durable.countOpen()) === 1 && (await pending(engine!)) === 0);
      const [rec] = await durable.listFailed({ route: 'hook' });
      expect(rec).toMatchObject({
        route: 'hook',
        source: 'http',
        code: 'GC027',
        status: 'open',
        body: JSON.stringify({ key: 'k', data: { amount: 'x' } }),
        context: { method: 'POST', path: '/hook/acme', query: { x: '1' }, params: { tenant: 'acme' } },
      });
      expect(rec.cause).toContain('422');
      expect(rec.headers['webhook-id']).toBe('bad-1');
      expect(rec.headers.authorization).toBeUndefined();
      expect(JSON.stringify(rec)).not.toContain('secret-token-123');
      const metrics = await fetch(`${engine.url}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/engine_outbox_failed_total\{route="hook"\} 1/);
      expect(metrics).toMatch(/engine_failed_exchanges_total\{route="hook",code="GC027"\} 1/);
      // replayed once the hub takes it: the replay publishes during its run, not through the outbox
      hub.status = 200;
      const r = await replayOne(
        {
          store: durable,
          route: (id) => engine!.routes.find((x) => x.id === id),
          metrics: engine.services.metrics,
          logger: engine.services.logger,
          actor: 'test',
          via: 'test',
        },
        rec.id,
      );
      expect(r.outcome).toBe('replayed');
      expect(hub.events.map((e) => e.id)).toEqual(['bad-1']);
      expect(await pending(engine)).toBe(0);
    });
  });
}

describe('outbox: false', () => {
  it('publishes during the request, as before: the hub saw the event when the answer came', async () => {
    hub = await startHub(200);
    engine = await startWebhookEngine(webhookProject(hub.url, false));
    const r = await deliver(engine, 'direct-1', 'k');
    expect(r).toEqual({ status: 200, body: { status: 'accepted', eventId: 'direct-1' } });
    expect(hub.events.map((e) => e.id)).toEqual(['direct-1']);
    expect(engine.services.readiness.has('outbox')).toBe(false);
    hub.status = 503;
    expect((await deliver(engine, 'direct-2', 'k')).status).toBe(503);
  });
});

describe('outbox whose store does not open', () => {
  it('publishes during the request: a second engine on one embedded data folder', async () => {
    hub = await startHub(200);
    const root = webhookProject(hub.url);
    engine = await startWebhookEngine(root);
    const first = engine;
    await until(async () => (await fetch(`${first.url}/health/ready`)).ok);
    const second = await startWebhookEngine(root);
    try {
      await until(async () => (await fetch(`${second.url}/health/ready`)).ok);
      expect(await deliver(second, 'second-1', 'k')).toEqual({
        status: 200,
        body: { status: 'accepted', eventId: 'second-1' },
      });
      expect(hub.events.map((e) => e.id)).toEqual(['second-1']);
    } finally {
      await second.close();
    }
  });
});
