// The event hub sink over real sockets: CloudEvents validation, storage, listing, faults.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CLOUDEVENTS_BATCH_CONTENT_TYPE,
  CLOUDEVENTS_CONTENT_TYPE,
  EVENTS_PATH,
  type EventHub,
  startEventHub,
} from '../../sandbox/eventhub/index.ts';

let hub: EventHub;

beforeAll(async () => {
  hub = await startEventHub();
});
afterAll(() => hub.close());
afterEach(() => {
  hub.clear();
  hub.server.clearFaults();
  hub.server.clearRequests();
});

let seq = 0;
const event = (over: Record<string, unknown> = {}) => ({
  specversion: '1.0',
  id: `evt-${++seq}`,
  source: 'com.platform.payments',
  type: 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent',
  time: new Date().toISOString(),
  datacontenttype: 'application/json',
  dataschema: 'https://schemas.platform.example/payment-status/1.0.0',
  topic: 'payment-status',
  data: { paymentOrderId: 'PO20250101000001', status: 'PROCESSED' },
  ...over,
});

const post = (body: unknown, contentType = CLOUDEVENTS_CONTENT_TYPE) =>
  fetch(hub.url + EVENTS_PATH, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: JSON.stringify(body),
  });

describe('event hub', () => {
  it('accepts a structured CloudEvent with 202 and lists it', async () => {
    const e = event();
    const res = await post(e);
    expect(res.status).toBe(202);
    expect(hub.events()).toEqual([e]);
    const listed = await fetch(`${hub.url}${EVENTS_PATH}?topic=payment-status`).then((r) => r.json());
    expect(listed).toEqual({ events: [e] });
    expect(await fetch(`${hub.url}${EVENTS_PATH}?topic=other`).then((r) => r.json())).toEqual({ events: [] });
  });

  it('accepts a batch and filters by type and source', async () => {
    const res = await post(
      [event(), event({ type: 'com.platform.batch.event.spec.v1.BatchStatusEvent', source: 'com.platform.batch' })],
      CLOUDEVENTS_BATCH_CONTENT_TYPE,
    );
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: 2 });
    expect(hub.events({ source: 'com.platform.batch' })).toHaveLength(1);
    const byType = await fetch(`${hub.url}${EVENTS_PATH}?type=com.platform.batch.event.spec.v1.BatchStatusEvent`).then(
      (r) => r.json(),
    );
    expect(byType.events).toHaveLength(1);
  });

  it('rejects events missing required attributes with a problem naming them, storing none', async () => {
    const { id, ...noId } = event();
    const res = await post([event(), { ...noId, specversion: '0.3' }], CLOUDEVENTS_BATCH_CONTENT_TYPE);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const p = await res.json();
    expect(p.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/1/specversion', '/1/id']);
    expect(hub.events()).toEqual([]);
  });

  it('rejects bad attribute names, a bad time, and a non-CloudEvents content type', async () => {
    const bad = await post(event({ 'asb.event.version': '1.0.0', time: 'yesterday' }));
    expect(bad.status).toBe(400);
    const p = await bad.json();
    expect(p.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/asb.event.version', '/time']);
    expect((await post(event(), 'application/json')).status).toBe(415);
  });

  it('shows one event per id with distinct=true and clears over HTTP', async () => {
    const e = event();
    await post(e);
    await post(e); // an at-least-once redelivery
    expect(hub.events()).toHaveLength(2);
    const distinct = await fetch(`${hub.url}${EVENTS_PATH}?distinct=true`).then((r) => r.json());
    expect(distinct.events).toEqual([e]);
    expect((await fetch(hub.url + EVENTS_PATH, { method: 'DELETE' })).status).toBe(204);
    expect(hub.events()).toEqual([]);
  });

  it('answers 503 while a fault is set, then accepts again', async () => {
    hub.server.addFault({ method: 'POST', path: `^${EVENTS_PATH}$`, status: 503, times: 2 });
    expect((await post(event())).status).toBe(503);
    expect((await post(event())).status).toBe(503);
    expect(hub.events()).toEqual([]);
    expect((await post(event())).status).toBe(202);
    expect(hub.events()).toHaveLength(1);
    expect(hub.server.requests({ method: 'POST', path: EVENTS_PATH })).toHaveLength(3);
  });

  it('waitFor resolves on an event arriving later', async () => {
    const e = event({ id: 'late-one' });
    const waiting = hub.waitFor((x) => x.id === 'late-one', 2000);
    await post(e);
    expect(await waiting).toEqual(e);
    await expect(hub.waitFor((x) => x.id === 'never', 50)).rejects.toThrow(/no matching event/);
  });

  it('keeps only the last maxEvents', async () => {
    const small = await startEventHub({ maxEvents: 2 });
    try {
      for (const id of ['a', 'b', 'c']) {
        await fetch(small.url + EVENTS_PATH, {
          method: 'POST',
          headers: { 'content-type': CLOUDEVENTS_CONTENT_TYPE },
          body: JSON.stringify(event({ id })),
        });
      }
      expect(small.events().map((e) => e.id)).toEqual(['b', 'c']);
      expect(hub.events()).toEqual([]); // no state shared between instances
    } finally {
      await small.close();
    }
  });
});
