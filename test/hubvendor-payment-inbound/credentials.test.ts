// Broker access problems: wrong credentials give a clear error (never the password), readiness
// false and attempts again with backoff; a broker that is unreachable at start is connected to
// once it appears (here a TCP relay to the real RabbitMQ that opens late).

import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.ts';
import {
  BROKER_PASSWORD,
  BROKER_URL,
  BROKER_USER,
  captureLogs,
  openConnection,
  publish,
  statusMessage,
  uniqueQueue,
  until,
} from './helpers.ts';

const CHECK = 'amqp:payment-status-inbound';
let engine: TestEngine | undefined;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  (await openConnection()).close();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  for (const c of closers.splice(0)) await c();
});

describe('payment inbound: broker access', () => {
  it('wrong credentials: a clear error naming the user, readiness false, retries with backoff', async () => {
    const secret = `wrong-${Date.now()}-pw`;
    const { logger, lines, text } = captureLogs();
    engine = await startTestEngine({
      routes: ['routes/hubvendor-payment-inbound'],
      set: {
        'hubvendor-amqp-url': BROKER_URL,
        'hubvendor-amqp-username': BROKER_USER,
        'hubvendor-amqp-password': secret,
        'hubvendor-amqp-queue-name': uniqueQueue('creds'),
      },
      logger,
    });
    const ready = await engine.request('GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks[CHECK]).toBe(false);
    // RabbitMQ answers a failed login after ~3 s; the second attempt follows 1 s later
    await until(() => lines.filter((l) => l.attempt !== undefined).length >= 2, 20_000, 'two failed attempts');
    const warnings = lines.filter((l) => l.attempt !== undefined);
    expect(warnings[0]).toMatchObject({ level: 'warn', attempt: 1, retryInMs: 1000, broker: 'amqp://127.0.0.1:5672' });
    expect(warnings[1]).toMatchObject({ level: 'warn', attempt: 2, retryInMs: 2000 });
    expect(warnings[0].msg, warnings[0].msg).toMatch(/authentication failed for user 'guest'/);
    // where to look: the environmental keys the connector's values name for the user and password
    expect(warnings[0].msg).toContain('(check hubvendor-amqp-username / hubvendor-amqp-password)');
    expect((await engine.request('GET', '/health/ready')).body.checks[CHECK]).toBe(false);
    expect(text()).not.toContain(secret);
  }, 30_000);

  it('connects once an unreachable broker appears, and then consumes', async () => {
    // reserve a port, then close it: nothing listens there until the relay opens
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const q = uniqueQueue('late');
    const { logger, lines } = captureLogs();
    engine = await startTestEngine({
      routes: ['routes/hubvendor-payment-inbound'],
      set: {
        'hubvendor-amqp-url': `amqp://127.0.0.1:${port}`,
        'hubvendor-amqp-username': BROKER_USER,
        'hubvendor-amqp-password': BROKER_PASSWORD,
        'hubvendor-amqp-queue-name': q,
      },
      logger,
    });
    await until(() => lines.some((l) => l.attempt === 1), 5000, 'a failed attempt');
    expect(lines.find((l) => l.attempt === 1)!.reason).toMatch(/ECONNREFUSED/);
    expect((await engine.request('GET', '/health/ready')).status).toBe(503);
    const relay = await startRelay(port, new URL(BROKER_URL));
    closers.push(() => relay.close());
    await until(
      async () => (await engine!.request('GET', '/health/ready')).status === 200,
      15_000,
      'readiness after the broker appeared',
    );
    expect(lines.some((l) => l.msg === 'AMQP connection re-established')).toBe(true);
    const m = statusMessage();
    await publish(q, [m]);
    await engine.sandbox.eventhub.waitFor(
      (ev) => (ev.data as any)?.bankReferenceId === JSON.parse(m.body as string).paymentOrderId,
      10_000,
    );
  }, 30_000);
});

/** A TCP relay from 127.0.0.1:port to the broker. */
async function startRelay(port: number, to: URL): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(to.port || 5672), to.hostname);
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
