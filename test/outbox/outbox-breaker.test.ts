// The outbox publisher obeys the event hub client's circuit breaker, the one the route's direct
// publications share: once the hub has failed often enough the breaker opens and the publisher
// stops calling it (the events wait in the outbox), then a probe after `half-open-after` finds the
// hub back, the breaker closes and every event is published once. PostgreSQL store, real sockets.

import { afterAll, afterEach, expect, it, vi } from 'vitest';
import type { RunningEngine } from '../../engine/engine.ts';
import { dropSchema, uniqueSchema } from '../store/helpers.ts';
import { deliver, startHub, startWebhookEngine, until, webhookProject, type Hub } from './helpers.ts';

vi.setConfig({ testTimeout: 60_000 });

const HALF_OPEN_MS = 2_000;
let engine: RunningEngine | undefined;
let hub: Hub | undefined;
const schema = uniqueSchema('outbox_breaker');
afterEach(async () => {
  await engine?.close();
  await hub?.close();
});
afterAll(() => dropSchema(schema));

const breakerState = (e: RunningEngine) =>
  e.services.http.guards.list().find((g) => g.client === 'hooks/hub')?.breaker?.state;

it('stops calling a hub whose breaker opened, probes it after half-open-after, then publishes every event once', async () => {
  hub = await startHub(503);
  engine = await startWebhookEngine(
    webhookProject(hub.url, true, { schema }, [`circuit-breaker: { failures: 3, half-open-after: ${HALF_OPEN_MS} }`]),
  );
  const sent: string[] = [];
  for (let i = 0; i < 6; i++) {
    const id = `wh-breaker-${i}`;
    expect(await deliver(engine, id, `case-${i % 2}`, { n: i })).toEqual({
      status: 200,
      body: { status: 'accepted', eventId: id },
    });
    sent.push(id);
  }
  await until(() => breakerState(engine!) === 'open');
  // open: the hub hears nothing while the events wait
  const postsWhenOpened = hub.posts;
  expect(postsWhenOpened).toBeGreaterThanOrEqual(3);
  await new Promise((r) => setTimeout(r, HALF_OPEN_MS / 2));
  expect(hub.posts).toBe(postsWhenOpened);
  expect(hub.events).toEqual([]);
  hub.status = 200;
  await until(() => hub!.events.length === sent.length);
  expect(new Set(hub.events.map((e) => e.id))).toEqual(new Set(sent));
  expect(breakerState(engine)).toBe('closed');
  const metrics = await fetch(`${engine.url}/metrics`).then((r) => r.text());
  expect(metrics).toMatch(/engine_client_breaker_transitions_total\{[^}]*to="open"[^}]*\} [1-9]/);
});
