// Sources across a reload, on the real RabbitMQ (AMQP 1.0): the consumer of a changed route is
// restarted and runs the new steps, the consumer of an unchanged route keeps its connection; a
// changed cron route runs its new body, a removed one stops.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  captureLogs,
  publish,
  startCountingSink,
  uniqueQueue,
  until,
  type CountingSink,
} from '../hubvendor-payment-inbound/helpers.ts';

const QA = uniqueQueue('reload-a');
const QB = uniqueQueue('reload-b');

const amqpRoute = (id: string, queue: string, version: number) => `id: ${id}
values: demo
from:
  amqp:
    url: "{{amqp.url}}"
    username: "{{amqp.username}}"
    password: "{{amqp.password}}"
    mapping: "${queue}>${id}"
steps:
  - to-http:
      name: sink
      method: POST
      url: "{{sink.url}}"
      body: "{'route': '${id}', 'version': ${version}, 'n': body.n}"
`;

const cronRoute = (version: number) => `id: ticker
values: demo
from:
  cron:
    schedule: "* * * * * *"
    body: { version: ${version} }
steps:
  - to-http:
      name: sink
      method: POST
      url: "{{sink.url}}"
      body: "{'route': 'ticker', 'version': body.version}"
`;

let sink: CountingSink;
let engine: RunningEngine;
let root: string;
const logs = captureLogs();
const write = (name: string, text: string) => writeFileSync(join(root, name), text);
const connected = (route: string) => logs.lines.filter((l) => l.route === route && l.msg === 'AMQP connected').length;

beforeAll(async () => {
  sink = await startCountingSink();
  root = tmpProject({
    'values/demo.values.yaml': `sink.url: ${sink.url}\namqp.url: ${BROKER_URL}\namqp.username: ${BROKER_USER}\namqp.password: ${BROKER_PASSWORD}\n`,
    'routes/inbound-a.yaml': amqpRoute('inbound-a', QA, 1),
    'routes/inbound-b.yaml': amqpRoute('inbound-b', QB, 1),
    'routes/ticker.yaml': cronRoute(1),
  });
  engine = await startEngine({ routes: ['routes'], root, port: 0, logger: logs.logger, shutdownTimeoutMs: 2000 });
  await until(() => connected('inbound-a') === 1 && connected('inbound-b') === 1, 10_000, 'both consumers connected');
});

afterAll(async () => {
  await engine?.close();
  await sink?.close();
});

describe('sources across a reload', () => {
  it('restarts the consumer of a changed route only', async () => {
    write('routes/inbound-b.yaml', amqpRoute('inbound-b', QB, 2));
    const r = await engine.reload();
    expect(r).toMatchObject({ ok: true, changed: ['inbound-b'], added: [], removed: [] });
    await until(() => connected('inbound-b') === 2, 10_000, 'the new consumer of inbound-b');
    expect(connected('inbound-a')).toBe(1);

    await publish(QA, [{ message_id: 'ra-1', body: JSON.stringify({ n: 1 }) }]);
    await publish(QB, [{ message_id: 'rb-1', body: JSON.stringify({ n: 2 }) }]);
    await until(() => sink.events.filter((e) => e.n !== undefined).length === 2, 10_000, 'both messages through');
    const byRoute = Object.fromEntries(sink.events.filter((e) => e.n !== undefined).map((e) => [e.route, e.version]));
    expect(byRoute).toEqual({ 'inbound-a': 1, 'inbound-b': 2 });
    // the readiness check belongs to the running consumer, not the stopped one
    const ready = (await fetch(engine.url + '/health/ready').then((x) => x.json())) as {
      checks: Record<string, boolean>;
    };
    expect(ready.checks).toMatchObject({ 'amqp:inbound-a': true, 'amqp:inbound-b': true });
  });

  it('runs a changed cron route with its new body and stops a removed one', async () => {
    await until(() => sink.events.some((e) => e.route === 'ticker' && e.version === 1), 5000, 'a tick of version 1');
    write('routes/ticker.yaml', cronRoute(2));
    expect(await engine.reload()).toMatchObject({ ok: true, changed: ['ticker'] });
    const mark = sink.events.length;
    await until(
      () => sink.events.slice(mark).some((e) => e.route === 'ticker' && e.version === 2),
      5000,
      'a tick of version 2',
    );
    // the old schedule is stopped: no version 1 tick starts after the reload's own
    await new Promise((r) => setTimeout(r, 1500));
    const later = sink.events.slice(mark).filter((e) => e.route === 'ticker');
    expect(later.slice(1).every((e) => e.version === 2)).toBe(true);

    rmSync(join(root, 'routes/ticker.yaml'));
    expect(await engine.reload()).toMatchObject({ ok: true, removed: ['ticker'] });
    await new Promise((r) => setTimeout(r, 200));
    const stopped = sink.events.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(sink.events.slice(stopped).filter((e) => e.route === 'ticker')).toEqual([]);
  });
});
