// `engine failed`, run as an operator runs it (node bin/engine.js failed ... in the project folder)
// against the machine's PostgreSQL (a schema of its own, dropped after): list and show masked,
// filters, a replay that runs the route as it is now and publishes to a stand-in event hub with the
// event id of the original message, two operators replaying one record at once running it once,
// discard, the audit with --as, and bad input refused with exit 1 and nothing changed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tmpProject } from '../helpers/tmp-project.ts';
import { dropSchema, PG_URL, uniqueSchema } from '../store/helpers.ts';
import { startCountingSink, type CountingSink } from '../hubvendor-payment-inbound/helpers.ts';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import { openEmbeddedStore } from '../../engine/store/durable-pglite.ts';
import type { DurableStore, FailedExchangeInput } from '../../engine/store/durable.ts';
import { engineCli, type CliResult } from '../helpers/cli.ts';

const schema = uniqueSchema('cli');
let root: string;
let sink: CountingSink;
let store: DurableStore;

function failed(args: string[], env: Record<string, string> = {}, cwd = root): Promise<CliResult> {
  return engineCli(['failed', ...args], {
    cwd,
    env: { ENGINE_STORE_POSTGRES_URL: PG_URL, LOG_LEVEL: 'error', ...env },
    timeoutMs: 120_000,
  });
}
const dev = (...args: string[]) => failed([...args, '--env', 'dev']);

/** An AMQP message the route status-in rejected, as the amqp source records it. */
const amqpRecord = (messageId: string, over: Partial<FailedExchangeInput> = {}): FailedExchangeInput => ({
  route: 'status-in',
  source: 'amqp',
  code: 'GC025',
  cause: 'body/amount: must be number; token Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
  body: JSON.stringify({ paymentId: `p-${messageId}`, amount: 12.5 }),
  headers: { 'content-type': 'application/json', 'x-api-key': 'k-0123456789abcdef', tenant: 'acme' },
  context: { messageId, queue: 'status-in-q', contentType: 'application/json', content: 'json' },
  correlationId: `corr-${messageId}`,
  ...over,
});

beforeAll(async () => {
  // a slow event hub: two replays of one record overlap while the first publishes
  sink = await startCountingSink(300);
  root = tmpProject({
    'values/demo.values.yaml': `hub.url: ${sink.url}\namqp.url: amqp://127.0.0.1:5672\namqp.username: guest\namqp.password: guest\n`,
    'values/environments/dev.yaml': `engine:\n  store:\n    postgres:\n      schema: ${schema}\nkeys: {}\nproperties: {}\n`,
    'routes/status-in.yaml': `id: status-in
values: demo
from:
  amqp:
    url: "{{amqp.url}}"
    username: "{{amqp.username}}"
    password: "{{amqp.password}}"
    mapping: "status-in-q>status-in"
steps:
  - to-eventhub:
      url: "{{hub.url}}"
      source: demo
      type: demo.status
      data: "{ 'paymentId': body.paymentId, 'amount': body.amount, 'tenant': headers.tenant }"
`,
    'routes/tick.yaml': `id: tick
values: demo
from:
  cron:
    schedule: "0 0 1 1 *"
    body: { kind: tick }
steps:
  - to-eventhub:
      url: "{{hub.url}}"
      source: demo
      type: demo.tick
`,
  });
  store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
}, 30_000);

afterAll(async () => {
  await store?.close();
  await sink?.close();
  await dropSchema(schema);
});

describe('engine failed', () => {
  it('lists and shows records masked, with the filters', async () => {
    const a = await store.recordFailed(amqpRecord('list-1'));
    const b = await store.recordFailed(amqpRecord('list-2', { route: 'other-v1', code: 'GC027' }));
    const list = await dev('list', '--json');
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    const all = JSON.parse(list.stdout);
    expect(all.records.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(all.open).toBeGreaterThanOrEqual(2);

    const byCode = JSON.parse((await dev('list', '--code', 'GC027', '--json')).stdout);
    expect(byCode.records.map((r: { id: string }) => r.id)).toEqual([b.id]);
    const recent = JSON.parse((await dev('list', '--route', 'other-v1', '--since', '1h', '--json')).stdout);
    expect(recent.total).toBe(1);
    const old = JSON.parse((await dev('list', '--route', 'other-v1', '--until', '2h', '--json')).stdout);
    expect(old.total).toBe(0);

    const table = await dev('list', '--route', 'status-in');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+ROUTE\s+SOURCE\s+CODE\s+STATUS/);
    expect(table.stdout).toContain(a.id);
    expect(table.stdout).not.toContain(b.id);

    const show = await dev('show', a.id);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('route:          status-in');
    expect(show.stdout).toContain('"paymentId": "p-list-1"');
    expect(show.stdout).toContain('x-api-key: k-01****');
    expect(show.stdout).not.toContain('0123456789abcdef');
    expect(show.stdout).not.toContain('eyJzdWIiOiJ4In0');
    const shown = JSON.parse((await dev('show', a.id, '--json')).stdout);
    expect(shown).toMatchObject({ id: a.id, status: 'open', headers: { tenant: 'acme', 'x-api-key': 'k-01****' } });
    await store.discard(a.id, 'test');
    await store.discard(b.id, 'test');
  }, 60_000);

  it('replays an AMQP record through the route as it is now: the same event id on every replay of the same input', async () => {
    const first = await store.recordFailed(amqpRecord('msg-42'));
    const second = await store.recordFailed(amqpRecord('msg-42'));
    const before = sink.events.length;
    const r1 = await dev('replay', first.id, '--as', 'alice');
    expect(r1.stderr).toBe('');
    expect(r1.stdout).toBe(`${first.id}: replayed (as alice)\n`);
    expect(r1.code).toBe(0);
    const r2 = await dev('replay', second.id, '--as', 'alice');
    expect(r2.code).toBe(0);
    const events = sink.events.slice(before) as { id: string; data: unknown }[];
    expect(events).toHaveLength(2);
    expect(events[0]!.data).toEqual({ paymentId: 'p-msg-42', amount: 12.5, tenant: 'acme' });
    // the id derives from the message id: downstream sees a duplicate, not a second payment status
    expect(events[1]!.id).toBe(events[0]!.id);
    expect(await store.getFailed(first.id)).toMatchObject({ status: 'replayed', settledBy: 'alice' });

    // replayed already: refused, nothing published
    const again = await dev('replay', first.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`failed exchange ${first.id} was already replayed by alice`));
    expect(sink.events.length).toBe(before + 2);
  }, 60_000);

  it('replays a cron run with the body it ran with', async () => {
    const rec = await store.recordFailed({
      route: 'tick',
      source: 'cron',
      code: 'GC027',
      body: JSON.stringify({ kind: 'tick', n: 3 }),
      context: {},
    });
    const before = sink.events.length;
    const r = await dev('replay', rec.id, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ results: [{ id: rec.id, outcome: 'replayed' }] });
    expect(sink.events.slice(before)).toEqual([
      expect.objectContaining({ type: 'demo.tick', data: { kind: 'tick', n: 3 } }),
    ]);
  }, 60_000);

  it('runs a record once when two operators replay it at the same time', async () => {
    const rec = await store.recordFailed(amqpRecord('race-1'));
    const before = sink.events.length;
    const [x, y] = await Promise.all([dev('replay', rec.id, '--as', 'op-a'), dev('replay', rec.id, '--as', 'op-b')]);
    expect([x.code, y.code].sort()).toEqual([0, 1]);
    const loser = x.code === 1 ? x : y;
    expect(loser.stderr).toMatch(/is being replayed by op-. right now|was already replayed by op-/);
    expect(sink.events.length - before).toBe(1);
    expect((await store.listAudit({ record: rec.id })).length).toBe(1);
  }, 60_000);

  it('replays in bulk after a dry-run count, one audit entry; a failing replay reopens its record', async () => {
    const recs = [];
    for (let i = 0; i < 3; i++)
      recs.push(await store.recordFailed(amqpRecord(`bulk-${i}`, { route: 'status-in', code: 'GC099' })));
    const dry = await dev('replay', '--code', 'GC099', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe('3 open record(s) match (code GC099)\ndry run: nothing changed\n');
    expect((await store.listFailed({ code: 'GC099', status: 'open' })).length).toBe(3);

    const before = sink.events.length;
    const bulk = await dev('replay', '--code', 'GC099', '--as', 'bob');
    expect(bulk.stderr).toBe('');
    expect(bulk.stdout).toBe('3 open record(s) match (code GC099)\nreplayed 3, failed again 0 (as bob)\n');
    expect(sink.events.length - before).toBe(3);
    const [entry] = await store.listAudit({ actor: 'bob' });
    expect(entry).toMatchObject({ action: 'replay', via: 'cli', outcome: 'replayed 3, failed again 0 of 3' });
    expect([...entry!.records].sort()).toEqual(recs.map((r) => r.id).sort());

    // the event hub refuses: the record is open again with the new cause, exit 1
    const rec = await store.recordFailed(amqpRecord('down-1'));
    sink.failWith = 400;
    try {
      const r = await dev('replay', rec.id, '--as', 'bob');
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/: failed again: \S+ \(the record is open again\)/);
    } finally {
      sink.failWith = undefined;
    }
    expect(await store.getFailed(rec.id)).toMatchObject({ status: 'open', attempts: 2 });
    await store.discard(rec.id, 'test');
  }, 60_000);

  it('discards one record or all matching, and history shows who did what', async () => {
    const a = await store.recordFailed(amqpRecord('d-1', { route: 'gone-v1' }));
    const b = await store.recordFailed(amqpRecord('d-2', { route: 'gone-v1' }));
    const c = await store.recordFailed(amqpRecord('d-3', { route: 'gone-v1' }));
    // its route is not loaded: a replay is refused and the record stays open
    const noRoute = await dev('replay', a.id);
    expect(noRoute.code).toBe(1);
    expect(noRoute.stderr).toMatch(
      /its route 'gone-v1' is not loaded now \(removed, or it has problems: engine lint says which\); the record stays open/,
    );
    expect((await store.getFailed(a.id))?.status).toBe('open');

    const one = await dev('discard', a.id, '--as', 'carol');
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(`${a.id}: discarded (as carol)\n`);
    // a bulk action needs a filter or --all-matching
    const bare = await dev('discard');
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/give record ids, or a filter .* or --all-matching/);
    const bulk = await dev('discard', '--route', 'gone-v1', '--all-matching', '--as', 'carol');
    expect(bulk.code).toBe(0);
    expect(bulk.stdout).toBe('2 open record(s) match (route gone-v1)\ndiscarded 2 (as carol)\n');
    expect((await store.getFailed(c.id))?.status).toBe('discarded');

    // replay of a discarded record: refused, unchanged
    const late = await dev('replay', b.id);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(
      new RegExp(`failed exchange ${b.id} was discarded by carol at \\S+; only open records`),
    );
    expect(await store.getFailed(b.id)).toMatchObject({ status: 'discarded', attempts: 1 });

    const h = await dev('history', '--as', 'carol', '--json');
    expect(h.code).toBe(0);
    const { entries } = JSON.parse(h.stdout);
    expect(entries.map((e: { outcome: string }) => e.outcome)).toEqual(['discarded 2 of 2', 'discarded']);
    expect(entries[1]).toMatchObject({ actor: 'carol', action: 'discard', records: [a.id], via: 'cli' });
    const forRecord = await dev('history', '--record', a.id);
    expect(forRecord.stdout).toMatch(
      /^AT\s+ACTOR\s+VIA\s+ACTION\s+RECORDS\s+OUTCOME\n\S+\s+carol\s+cli\s+discard\s+\S+\s+discarded\n$/,
    );
  }, 60_000);

  it('refuses bad input with a message and exit 1, changing nothing', async () => {
    const rec = await store.recordFailed(amqpRecord('bad-1', { route: 'status-in', code: 'GC098' }));
    const audits = (await store.listAudit({ limit: 1000 })).length;
    const unknown = await dev('show', 'no-such-id');
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: "engine failed: no failed exchange 'no-such-id'\n" });
    expect((await dev('replay', 'no-such-id')).stderr).toBe("engine failed: no failed exchange 'no-such-id'\n");
    const none = await dev('replay', '--route', 'no-such-route');
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'engine failed: no open failed exchanges match (route no-such-route); nothing to replay\n',
    );
    const badTime = await dev('list', '--since', 'yesterday');
    expect(badTime.code).toBe(1);
    expect(badTime.stderr).toMatch(/'since' must be an ISO 8601 time or a duration/);

    // PostgreSQL down (nothing listens on port 1): the store is named, never a password
    const down = await failed(['replay', rec.id, '--env', 'dev'], {
      ENGINE_STORE_POSTGRES_URL: 'postgres://postgres:s3cret-pw@127.0.0.1:1/test',
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      new RegExp(
        `^engine failed: the durable store is unavailable \\(PostgreSQL 127\\.0\\.0\\.1:1/test schema ${schema}\\): .*ECONNREFUSED.*nothing was changed\\n$`,
      ),
    );
    expect(down.stderr).not.toContain('s3cret-pw');
    expect(await store.getFailed(rec.id)).toMatchObject({ status: 'open', attempts: 1 });
    expect((await store.listAudit({ limit: 1000 })).length).toBe(audits);
    await store.discard(rec.id, 'test');
  }, 60_000);

  it('says an embedded store is held by a process that names no engine, and what to use instead', async () => {
    const dir = join(root, '.engine/store');
    const held = await openEmbeddedStore({ dir });
    try {
      const r = await failed(['list'], { ENGINE_STORE_POSTGRES_URL: '' });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^engine failed: the embedded store ${dir.replaceAll('/', '\\/')} is in use by process ${process.pid}: an engine is running on this embedded store.*console \\(/console/, the Failed page\\).*PostgreSQL \\(ENGINE_STORE_POSTGRES_URL\\) \\(not through its console API: process ${process.pid} names no engine listener beside the lock\\)\\n$`,
        ),
      );
    } finally {
      await held.close();
    }
  }, 120_000);
});
