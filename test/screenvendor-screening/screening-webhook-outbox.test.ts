// The screening webhook route as shipped, with its default outbox (the test helper's engines
// publish directly; this one does not), on an embedded store in a folder of its own: while the
// sandbox event hub answers 503 the simulator's webhooks are answered 200 and the events wait;
// once it recovers each is published once, with its stable id.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import { valuesWithStore } from '../replicas/helpers.ts';
import { stableId } from '../../engine/core/functions.ts';
import type { Screenvendor } from '../../sandbox/screenvendor/index.ts';
import { until } from '../outbox/helpers.ts';

let engine: TestEngine;
let sv: Screenvendor;
const data = mkdtempSync(join(tmpdir(), 'outbox-store-'));
const values = valuesWithStore({ embedded: { dir: data } });
const TYPE = 'com.platform.screening.event.spec.v1.ScreeningMonitoringEvent';

beforeAll(async () => {
  engine = await startTestEngine({
    routes: ['routes/screenvendor-screening'],
    valuesDir: values.dir,
    outbox: undefined,
    set: { 'screening-v2:redelivery.maximumRetries': '0' },
  });
  sv = engine.sandbox.services.screenvendor as Screenvendor;
  sv.setWebhookUrl(`${engine.url}/webhooks/screening`);
  await until(async () => (await fetch(`${engine.url}/health/ready`)).ok, 60_000);
}, 90_000);
afterAll(async () => {
  await engine?.close();
  values.remove();
  rmSync(data, { recursive: true, force: true });
});

it('accepts the webhooks while the event hub answers 503, then publishes each once', async () => {
  const hub = engine.sandbox.eventhub;
  hub.server.addFault({ path: '^/events$', method: 'POST', status: 503 });
  const ids: string[] = [];
  try {
    for (const [first, last] of [
      ['Viktor', 'Petrov'],
      ['Ahmed', 'Karimov'],
    ]) {
      const r = await engine.request('POST', '/customer-screening', {
        customerReference: `OUTBOX-${Date.now()}-${first}`,
        person: { firstName: first, lastName: last },
        identityProofingTaskDescription: { monitoringFlag: 'Y' },
      });
      expect(r.status).toBe(200);
      const t = await sv.triggerListUpdate(r.body.caseReference, { attempts: 1 });
      expect(t.deliveries.map((d) => d.status)).toEqual([200]);
      ids.push(stableId('screenvendor-webhook', t.webhookId));
    }
    await until(() => hub.server.requests().some((q) => q.path === '/events'));
    expect(hub.events({ type: TYPE }).filter((e) => ids.includes(e.id))).toEqual([]);
  } finally {
    hub.server.clearFaults();
  }
  await until(() => hub.events({ type: TYPE }).filter((e) => ids.includes(e.id)).length === 2, 30_000);
  expect(
    hub
      .events({ type: TYPE })
      .map((e) => e.id)
      .filter((id) => ids.includes(id))
      .sort(),
  ).toEqual([...ids].sort());
}, 60_000);
