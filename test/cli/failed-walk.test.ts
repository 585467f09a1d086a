// The operator's walk of issue 26 on the real RabbitMQ and PostgreSQL: a route released with a
// broken schema rejects status messages, the engine records them (the sources' recorder), the
// route file is fixed, and `engine failed replay --route ... --all-matching` (the CLI, a process of
// its own beside the running engine, loading the fixed file) publishes every one with the event id
// its message id gives; the audit names the operator.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEngine, type RunningEngine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/observability/logger.ts';
import { stableId } from '../../engine/core/functions.ts';
import { openPostgresStore } from '../../engine/store/durable-pg.ts';
import type { DurableStore } from '../../engine/store/durable.ts';
import { tmpProject } from '../helpers/tmp-project.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  openConnection,
  publish,
  startCountingSink,
  uniqueQueue,
  until,
  type CountingSink,
} from '../hubvendor-payment-inbound/helpers.ts';
import { dropSchema, PG_URL, uniqueSchema } from '../store/helpers.ts';
import { engineCli, type CliResult } from '../helpers/cli.ts';

const QUEUE = uniqueQueue('walk');
const SCHEMA = uniqueSchema('walk');
const EVENT = 'com.example.walk.v1.Status';

const route = (amountType: string) => `id: walk-status
values: demo
from:
  amqp:
    url: "{{amqp.url}}"
    username: "{{amqp.username}}"
    password: "{{amqp.password}}"
    mapping: "${QUEUE}>walk-status"
steps:
  - validate:
      schema: { type: object, required: [paymentId, amount], properties: { amount: { type: ${amountType} } } }
  - to-eventhub:
      url: "{{sink.url}}"
      type: ${EVENT}
      source: walk
`;

let root: string;
let engine: RunningEngine;
let sink: CountingSink;
let store: DurableStore;

function cli(args: string[]): Promise<CliResult> {
  return engineCli(['failed', ...args, '--env', 'test'], {
    cwd: root,
    env: { LOG_LEVEL: 'error', ENGINE_STORE_POSTGRES_URL: '' },
    timeoutMs: 120_000,
  });
}

beforeAll(async () => {
  (await openConnection()).close();
  sink = await startCountingSink();
  root = tmpProject({
    'values/demo.values.yaml': `amqp.url: ${BROKER_URL}\namqp.username: ${BROKER_USER}\namqp.password: ${BROKER_PASSWORD}\nsink.url: ${sink.url}\n`,
    'values/environments/test.yaml': `engine:\n  store:\n    postgres:\n      url: ${PG_URL}\n      schema: ${SCHEMA}\nkeys: {}\nproperties: {}\n`,
    // released with a bug: amounts arrive as decimal strings, the schema wants numbers
    'routes/walk-status.yaml': route('number'),
  });
  engine = await startEngine({
    routes: ['routes'],
    root,
    env: 'test',
    port: 0,
    logger: createLogger('silent'),
    shutdownTimeoutMs: 2000,
    processEnv: {},
  });
  store = await openPostgresStore({ url: PG_URL, schema: SCHEMA, poolSize: 2 });
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await store?.close();
  await sink?.close();
  await dropSchema(SCHEMA);
});

it('records the rejected messages, and after the fix a bulk replay publishes them with their own event ids', async () => {
  const ids = ['walk-1', 'walk-2', 'walk-3'];
  await publish(
    QUEUE,
    ids.map((id) => ({
      message_id: id,
      content_type: 'application/json',
      body: JSON.stringify({ paymentId: `p-${id}`, amount: '12.50' }),
    })),
  );
  await until(async () => (await store.countFailed({ route: 'walk-status' })) === 3, 15_000, 'three records');
  expect(sink.events).toHaveLength(0);

  const dry = await cli(['replay', '--route', 'walk-status', '--dry-run']);
  expect(dry.stdout).toBe('3 open record(s) match (route walk-status)\ndry run: nothing changed\n');

  // the fix: amounts are decimal strings
  writeFileSync(join(root, 'routes/walk-status.yaml'), route('string'));
  const r = await cli(['replay', '--route', 'walk-status', '--all-matching', '--as', 'ops-alice']);
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('3 open record(s) match (route walk-status)\nreplayed 3, failed again 0 (as ops-alice)\n');
  expect(r.code).toBe(0);

  // in the order they arrived, each with the id its message id gives (a redelivery's id)
  expect(sink.events.map((e) => (e as { id: string }).id)).toEqual(ids.map((id) => stableId(EVENT, id)));
  expect(sink.events.map((e) => (e as { data: unknown }).data)).toEqual(
    ids.map((id) => ({ paymentId: `p-${id}`, amount: '12.50' })),
  );
  expect(await store.countFailed({ route: 'walk-status', status: 'replayed' })).toBe(3);
  const h = await cli(['history', '--as', 'ops-alice']);
  expect(h.stdout).toMatch(/ops-alice\s+cli\s+replay\s+3 records\s+replayed 3, failed again 0 of 3\n$/);
}, 120_000);
