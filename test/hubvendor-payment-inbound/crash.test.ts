// The engine killed with SIGKILL in the middle of a stream and started again: every message's
// event is published, and a message processed twice yields the same event id both times.
// The engine runs as a child process (`node bin/engine.js run ...`) against the real RabbitMQ;
// the event hub sink runs in this test.

import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventHub, type EventHub } from '../../sandbox/eventhub/index.ts';
import { stableId } from '../../engine/core/functions.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  bodyOf,
  drain,
  openConnection,
  publish,
  statusMessage,
  uniqueQueue,
  until,
} from './helpers.ts';

const TYPE = 'com.platform.payment.event.spec.v1.PaymentOrderStatusEvent';
let hub: EventHub;
const children: ChildProcess[] = [];

beforeAll(async () => {
  (await openConnection()).close();
  hub = await startEventHub();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await hub?.close();
});

function startChild(queue: string): { child: ChildProcess; output: () => string } {
  const child = spawn(
    process.execPath,
    [
      'bin/engine.js',
      'run',
      'routes/hubvendor-payment-inbound',
      '--env',
      'development',
      '--port',
      '0',
      '--set',
      `hubvendor-amqp-url=${BROKER_URL}`,
      '--set',
      `hubvendor-amqp-queue-name=${queue}`,
      '--set',
      `asb.producer.apiUri=${hub.url}/events`,
      '--set',
      'source.concurrent.threads=4',
    ],
    {
      cwd: process.cwd(),
      // the secret's keys through the process environment, as in a deployment
      env: {
        ...process.env,
        HUBVENDOR_AMQP_USERNAME: BROKER_USER,
        HUBVENDOR_AMQP_PASSWORD: BROKER_PASSWORD,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  return { child, output: () => out };
}

describe('payment inbound: engine killed mid-stream', () => {
  it('publishes every message after a SIGKILL and a restart; duplicates carry the same id', async () => {
    const q = uniqueQueue('kill');
    const N = 150;
    const msgs = Array.from({ length: N }, () => statusMessage());
    await publish(q, msgs);
    // a slow event hub keeps messages in flight when the engine dies
    hub.server.addFault({ method: 'POST', path: '^/events$', delayMs: 25 });

    const first = startChild(q);
    await until(() => hub.events({ type: TYPE }).length >= 40, 30_000, '40 events from the first engine');
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    const beforeRestart = hub.events({ type: TYPE, distinct: true }).length;
    expect(beforeRestart).toBeLessThan(N);

    const second = startChild(q);
    await until(
      () => hub.events({ type: TYPE, distinct: true }).length === N,
      40_000,
      `all ${N} events after the restart`,
    );
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));

    const events = hub.events({ type: TYPE });
    const expected = new Map(msgs.map((m) => [bodyOf(m).paymentOrderId as string, stableId(TYPE, m.message_id)]));
    for (const ev of events) expect(ev.id).toBe(expected.get((ev.data as any).bankReferenceId));
    expect(new Set(events.map((ev) => ev.id)).size).toBe(N);
    console.info(
      `crash test: ${events.length - N} duplicate event(s) after the restart, ${beforeRestart} distinct before it`,
    );
    expect(second.output()).not.toContain(`"${BROKER_PASSWORD}"`);
    expect(await drain(q)).toEqual([]);
  }, 60_000);
});
