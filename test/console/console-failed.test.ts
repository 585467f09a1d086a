// The console's Failed API on a real engine over real sockets, its durable store in a PostgreSQL
// schema of its own (dropped after): records listed and shown masked, a webhook replayed though its
// signature is long past the tolerance (verify-signature trusts a replay; the same request sent live
// is refused), the same event id on two replays of one input, discard, bulk with a dry run, the audit
// naming the console user, refusals as problem documents (404, 409, 400, 415, 403) that change
// nothing, and 503 when the store is down.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type EngineExtension, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { consoleExtension } from '../../engine/console/index.ts';
import { sign } from '../../engine/outbound/webhook-signature.ts';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import type { DurableStore, FailedExchangeInput } from '../../engine/store/durable.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import { dropSchema, PG_URL, uniqueSchema } from '../store/helpers.ts';
import { captureLogs, startCountingSink, type CountingSink } from '../hubvendor-payment-inbound/helpers.ts';

const SECRET = 'whsec_' + Buffer.from('a-webhook-secret-of-32-bytes!!!!').toString('base64');
const schema = uniqueSchema('console');
let sink: CountingSink;
let store: DurableStore;
let root: string;
let engine: RunningEngine;
const logs = captureLogs();

const envFile = (url: string) =>
  `engine:\n  console:\n    enabled: true\n  store:\n    postgres:\n      url: ${url}\n      schema: ${schema}\nkeys: {}\nproperties: {}\n`;

function start(env: string): Promise<RunningEngine> {
  const list: EngineExtension[] = [];
  list.push(consoleExtension(() => list));
  return startEngine({
    routes: ['routes'],
    root,
    env,
    port: 0,
    logger: env === 'dev' ? logs.logger : createLogger('silent'),
    shutdownTimeoutMs: 1000,
    extensions: list,
    processEnv: {},
  });
}

/** A signed webhook as the vendor sent it an hour ago. */
function webhook(id: string, amount: number) {
  const body = JSON.stringify({ paymentId: `p-${id}`, amount });
  const ts = Math.floor(Date.now() / 1000) - 3600;
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': sign(SECRET, id, ts, body),
    },
  };
}

const httpRecord = (id: string, over: Partial<FailedExchangeInput> = {}): FailedExchangeInput => {
  const w = webhook(id, 7);
  return {
    route: 'status-hook',
    source: 'http',
    code: 'GC027',
    cause: 'event hub: 503; echoed Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
    body: w.body,
    headers: { ...w.headers, 'x-api-key': 'k-0123456789abcdef' },
    context: { method: 'POST', path: '/hooks/status', query: {}, params: {} },
    correlationId: `corr-${id}`,
    ...over,
  };
};

const get = async (path: string, e = engine) => {
  const res = await fetch(e.url + path);
  return { status: res.status, body: (await res.json()) as any };
};
const post = async (path: string, body: unknown = {}, headers: Record<string, string> = {}, e = engine) => {
  const res = await fetch(e.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-console-user': 'dana', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
};

beforeAll(async () => {
  sink = await startCountingSink();
  root = tmpProject({
    'values/demo.values.yaml': `hub.url: ${sink.url}\nhooks.secret: ${SECRET}\n`,
    'values/environments/dev.yaml': envFile(PG_URL),
    'values/environments/down.yaml': envFile('postgres://postgres@127.0.0.1:1/test'),
    'routes/status-hook.yaml': `id: status-hook
values: demo
from:
  http:
    method: POST
    path: /hooks/status
    raw-body: true
steps:
  - verify-signature:
      secret: "{{hooks.secret}}"
  - to-eventhub:
      url: "{{hub.url}}"
      source: demo
      type: demo.status
      id: "$stableId('demo.status', headers.\`webhook-id\`)"
`,
  });
  store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
  engine = await start('dev');
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await store?.close();
  await sink?.close();
  await dropSchema(schema);
});

describe('console Failed API', () => {
  it('lists with filters and shows one record, masked; unknown ids and bad filters are problems', async () => {
    const a = await store.recordFailed(httpRecord('list-1'));
    const b = await store.recordFailed(httpRecord('list-2', { route: 'other-v1', code: 'GC025' }));
    const all = await get('/console/api/failed');
    expect(all.status).toBe(200);
    expect(all.body.records.map((r: { id: string }) => r.id)).toEqual([b.id, a.id]);
    expect(all.body).toMatchObject({ open: 2, total: 2 });
    const byCode = await get('/console/api/failed?code=GC025&since=1h');
    expect(byCode.body.records.map((r: { id: string }) => r.id)).toEqual([b.id]);
    expect((await get('/console/api/failed?route=status-hook&limit=1')).body.records).toHaveLength(1);

    const one = await get(`/console/api/failed/${a.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: a.id, status: 'open', route: 'status-hook' });
    expect(one.body.headers['x-api-key']).toBe('k-01****');
    expect(one.body.cause).not.toContain('eyJzdWIiOiJ4In0');

    const unknown = await get('/console/api/failed/no-such-id');
    expect(unknown).toMatchObject({ status: 404, body: { status: 404, detail: "no failed exchange 'no-such-id'" } });
    const badSince = await get('/console/api/failed?since=yesterday');
    expect(badSince.status).toBe(400);
    expect(badSince.body.detail).toMatch(/'since' must be an ISO 8601 time or a duration/);
    await store.discard(a.id, 'test');
    await store.discard(b.id, 'test');
  });

  it('replays a webhook whose signature is past its tolerance (trusted as verified when received), with the same event id each time', async () => {
    // the same request sent live now is refused: its timestamp is an hour old
    const w = webhook('hook-9', 7);
    const live = await fetch(`${engine.url}/hooks/status`, { method: 'POST', headers: w.headers, body: w.body });
    expect(live.status).toBe(401);

    const first = await store.recordFailed(httpRecord('hook-9'));
    const second = await store.recordFailed(httpRecord('hook-9'));
    const before = sink.events.length;
    const r = await post(`/console/api/failed/${first.id}/replay`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      outcome: 'replayed',
      record: { id: first.id, status: 'replayed', settledBy: 'dana' },
    });
    expect(r.body.record.headers['x-api-key']).toBe('k-01****');
    expect((await post(`/console/api/failed/${second.id}/replay`)).body.outcome).toBe('replayed');
    const events = sink.events.slice(before) as { id: string; data: unknown }[];
    expect(events).toHaveLength(2);
    expect(events[0]!.data).toEqual({ paymentId: 'p-hook-9', amount: 7 });
    expect(events[1]!.id).toBe(events[0]!.id);
    // the step says why it let the stale signature through
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        msg: 'webhook signature verified when received',
        replayOf: first.id,
        webhookId: 'hook-9',
      }),
    );

    const again = await post(`/console/api/failed/${first.id}/replay`);
    expect(again.status).toBe(409);
    expect(again.type).toMatch(/^application\/problem\+json/);
    expect(again.body).toMatchObject({ status: 409, recordStatus: 'replayed' });
    expect(again.body.detail).toMatch(/was already replayed by dana/);
    expect(sink.events.length).toBe(before + 2);

    const h = await get(`/console/api/failed/history?record=${first.id}`);
    expect(h.body.entries).toEqual([
      expect.objectContaining({
        actor: 'dana',
        action: 'replay',
        records: [first.id],
        outcome: 'replayed',
        via: 'console',
      }),
    ]);
  });

  it('runs a record once when two operators press replay at the same time', async () => {
    const rec = await store.recordFailed(httpRecord('race-1'));
    const before = sink.events.length;
    const answers = await Promise.all([
      post(`/console/api/failed/${rec.id}/replay`, {}, { 'x-console-user': 'op-a' }),
      post(`/console/api/failed/${rec.id}/replay`, {}, { 'x-console-user': 'op-b' }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(sink.events.length - before).toBe(1);
    expect(await store.listAudit({ record: rec.id })).toHaveLength(1);
  });

  it('discards one record and in bulk after a dry run; refusals change nothing', async () => {
    const a = await store.recordFailed(httpRecord('d-1', { route: 'gone-v1' }));
    const b = await store.recordFailed(httpRecord('d-2', { route: 'gone-v1' }));
    const c = await store.recordFailed(httpRecord('d-3', { route: 'gone-v1' }));
    // its route is not served now: 409, still open
    const noRoute = await post(`/console/api/failed/${a.id}/replay`);
    expect(noRoute.status).toBe(409);
    expect(noRoute.body.detail).toMatch(/its route 'gone-v1' is not loaded now/);
    expect((await store.getFailed(a.id))?.status).toBe('open');

    const d = await post(`/console/api/failed/${a.id}/discard`, {}, { 'x-console-user': '' });
    expect(d).toMatchObject({ status: 200, body: { record: { id: a.id, status: 'discarded', settledBy: 'console' } } });
    expect((await post(`/console/api/failed/${a.id}/discard`)).status).toBe(409);
    expect((await post(`/console/api/failed/${a.id}/replay`)).body.detail).toMatch(/was discarded by console/);
    expect((await post('/console/api/failed/no-such-id/discard')).status).toBe(404);

    expect(await post('/console/api/failed/discard', { route: 'gone-v1', dryRun: true })).toMatchObject({
      status: 200,
      body: { matched: 2 },
    });
    expect((await store.getFailed(b.id))?.status).toBe('open');
    const none = await post('/console/api/failed/replay', { route: 'no-such-route' });
    expect(none.status).toBe(404);
    expect(none.body.detail).toBe('no open failed exchanges match; nothing to replay');
    const bare = await post('/console/api/failed/discard', {});
    expect(bare.status).toBe(400);
    expect(bare.body.detail).toMatch(/name a filter .* or 'allMatching': true/);

    const bulk = await post('/console/api/failed/discard', { route: 'gone-v1' }, { 'x-console-user': 'erin' });
    expect(bulk).toMatchObject({ status: 200, body: { matched: 2, replayed: 0, failed: 0 } });
    expect((await store.getFailed(c.id))?.status).toBe('discarded');
    const h = await get('/console/api/failed/history?limit=1');
    expect(h.body.entries[0]).toMatchObject({ actor: 'erin', action: 'discard', outcome: 'discarded 2 of 2' });
    expect([...h.body.entries[0].records].sort()).toEqual([b.id, c.id].sort());
  });

  it("keeps the console's same-origin protection on replay and discard", async () => {
    const rec = await store.recordFailed(httpRecord('csrf-1'));
    const form = await fetch(`${engine.url}/console/api/failed/${rec.id}/discard`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form.status).toBe(415);
    const foreign = await post(`/console/api/failed/${rec.id}/replay`, {}, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await store.getFailed(rec.id)).toMatchObject({ status: 'open', attempts: 1 });
    expect(await store.listAudit({ record: rec.id })).toEqual([]);
    await store.discard(rec.id, 'test');
  });

  it('answers 503 when the store is down', async () => {
    const down = await start('down');
    try {
      const list = await get('/console/api/failed', down);
      expect(list.status).toBe(503);
      expect(list.body.detail).toMatch(/^the durable store is unavailable: /);
      expect((await post('/console/api/failed/x/replay', {}, {}, down)).status).toBe(503);
    } finally {
      await down.close();
    }
  }, 30_000);
});
