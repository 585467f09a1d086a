// Failed cron runs and opted-in HTTP requests are kept with their cause (issue 26 section 2), in
// the real PostgreSQL (a schema of its own, dropped after): a cron run that fails is recorded with
// its body; an HTTP route with `record-failures: true` records an answer >= 500 with its raw body,
// method, path, query and params, never a credential header; a route without it records nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { durableStoreFor } from '../../engine/store/durable-for.ts';
import type { DurableStore } from '../../engine/store/durable.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { captureLogs, until } from '../hubvendor-payment-inbound/helpers.ts';
import { PG_URL, dropSchema, uniqueSchema } from './helpers.ts';

const SCHEMA = uniqueSchema('rec_cron_http');
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0In0.c2lnbmF0dXJl';

let engine: RunningEngine;
let vendor: Server;
let store: DurableStore;
const logs = captureLogs();

const callVendor = `steps:
  - to-http:
      name: vendor
      method: POST
      url: "{{vendor.url}}"
`;

beforeAll(async () => {
  // a vendor that is down, and echoes the caller's token into its error (masked in the record)
  vendor = createServer((req, res) => {
    req.resume();
    res
      .writeHead(503, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: `down for Bearer ${TOKEN}` }));
  });
  await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
  const root = tmpProject({
    'values/demo.values.yaml': `vendor.url: http://127.0.0.1:${(vendor.address() as AddressInfo).port}/x\n`,
    'values/environments/test.yaml': `engine:\n  store:\n    postgres:\n      url: ${PG_URL}\n      schema: ${SCHEMA}\n`,
    'routes/tick.yaml': `id: rec-tick
values: demo
from:
  cron:
    schedule: "* * * * * *"
    body: { check: nightly }
${callVendor}`,
    'routes/on.yaml': `id: rec-http-on
values: demo
from:
  http:
    path: /things/{thingId}
    record-failures: true
${callVendor}`,
    'routes/off.yaml': `id: rec-http-off
values: demo
from:
  http:
    path: /others/{thingId}
${callVendor}`,
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
  store = await durableStoreFor(engine.services);
});

afterAll(async () => {
  await engine?.close();
  await new Promise((r) => vendor?.close(r));
  await dropSchema(SCHEMA);
});

describe('failed cron runs and HTTP requests', () => {
  it('records a cron run that failed, with its body', async () => {
    await until(async () => (await store.countFailed({ route: 'rec-tick' })) >= 1, 5000, 'a cron record');
    const [rec] = await store.listFailed({ route: 'rec-tick' });
    expect(rec).toMatchObject({ source: 'cron', code: 'GC027', body: '{"check":"nightly"}', context: {}, attempts: 1 });
    expect(rec!.routeVersion).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(rec!.cause).toMatch(/vendor status 503/);
    // the vendor's echo of the token is masked
    expect(rec!.cause).not.toContain(TOKEN);
    expect(rec!.cause).toContain('Bearer eyJh****');
    const line = logs.lines.find((l) => l.failedId === rec!.id);
    expect(line).toMatchObject({ level: 'error', route: 'rec-tick', code: 'GC027', source: 'cron' });
  });

  it('records an answer >= 500 of a route with record-failures, never its credential headers', async () => {
    const body = '{"amount": 12.5}';
    const res = await fetch(`${engine.url}/things/t-42?dry=no`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${TOKEN}`,
        'ocp-gateway-subscription-key': 'sub-key-1234567',
        'webhook-signature': 'v1,abcdefabcdef',
        cookie: 'session=abcdef123456',
        'x-tenant': 'acme',
        'x-correlation-id': 'corr-http-1',
      },
      body,
    });
    expect(res.status).toBe(502);
    await res.text();
    // recorded once the answer is written
    await until(async () => (await store.countFailed({ route: 'rec-http-on' })) === 1, 5000, 'the HTTP record');
    const recs = await store.listFailed({ route: 'rec-http-on' });
    expect(recs).toHaveLength(1);
    expect(recs[0]).toMatchObject({
      source: 'http',
      code: 'GC027',
      body,
      context: { method: 'POST', path: '/things/t-42', query: { dry: 'no' }, params: { thingId: 't-42' } },
      correlationId: 'corr-http-1',
      headers: { 'content-type': 'application/json', 'x-tenant': 'acme' },
    });
    for (const h of ['authorization', 'ocp-gateway-subscription-key', 'webhook-signature', 'cookie'])
      expect(Object.keys(recs[0]!.headers)).not.toContain(h);
    expect(JSON.stringify(recs[0])).not.toContain(TOKEN);
  });

  it('records nothing of an HTTP route without record-failures', async () => {
    const res = await fetch(`${engine.url}/others/t-1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(502);
    await res.text();
    await new Promise((r) => setTimeout(r, 200));
    expect(await store.countFailed({ route: 'rec-http-off' })).toBe(0);
  });
});
