// Payment inbound benchmark: messages per second consumed from RabbitMQ and published to an event
// hub sink with transacted acknowledgement (accept after the event hub's 2xx), at 1 and 4
// consumers, for the engine's route and for a minimal hand-written rhea consumer doing the same
// POST, same broker, same sink, one run. Each case drains its own queue of MESSAGES pre-published
// messages (default 3000; bounded); the rate is counted from the first to the last event.
// `node bin/run-ts.js bench/hubvendor-payment-inbound/run.ts` or `node --import tsx
// bench/hubvendor-payment-inbound/run.ts`.
// Needs RabbitMQ with rabbitmq_amqp1_0 at AMQP_URL (default amqp://127.0.0.1:5672, guest/guest).

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import rhea from 'rhea';
import type { Message } from 'rhea';
import { cpuMicros, rssMiB } from '../lib/harness.ts';

const AMQP_URL = process.env.AMQP_URL ?? 'amqp://127.0.0.1:5672';
const USER = process.env.AMQP_USERNAME ?? 'guest';
const PASSWORD = process.env.AMQP_PASSWORD ?? 'guest';
const MESSAGES = Number(process.env.MESSAGES ?? 3000);
const TIMEOUT_MS = Number(process.env.TIMEOUT_MS ?? 120_000);
const run = randomUUID().slice(0, 8);

// --- the event hub sink: answers 202 to each event and counts them ---
let count = 0;
let firstAt = 0;
let lastAt = 0;
const sink = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const now = performance.now();
    if (count === 0) firstAt = now;
    count++;
    lastAt = now;
    res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":1}');
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/events`;

async function publish(address: string, n: number): Promise<void> {
  const u = new URL(AMQP_URL);
  const conn = rhea
    .create_container()
    .connect({ host: u.hostname, port: Number(u.port || 5672), username: USER, password: PASSWORD, reconnect: false });
  await new Promise<void>((resolve, reject) => {
    const s = conn.open_sender({ target: { address } });
    let sent = 0;
    let acked = 0;
    s.on('sendable', () => {
      while (sent < n && s.sendable()) {
        sent++;
        const m: Message = {
          message_id: `bench-${run}-${address}-${sent}`,
          content_type: 'application/json',
          body: JSON.stringify({
            paymentOrderId: `PO${String(sent).padStart(10, '0')}`,
            endToEndReference: `E2E-${sent}`,
            status: 'PROCESSED',
            statusReasonCode: null,
            statusDateTime: new Date().toISOString(),
          }),
        };
        s.send(m);
      }
    });
    s.on('accepted', () => {
      if (++acked === n) resolve();
    });
    s.on('rejected', () => reject(new Error('broker rejected a message')));
    conn.on('disconnected', (ctx) => reject(new Error(`broker: ${ctx.error?.message ?? 'disconnected'}`)));
  });
  conn.close();
}

interface Result {
  name: string;
  consumers: number;
  msgsPerSec: number;
  seconds: number;
  rssMiB: number;
  cpuUsPerMsg: number;
}

async function runCase(name: string, consumers: number, start: (queue: string) => ChildProcess): Promise<Result> {
  const queue = `/queue/bench-pi-${run}-${name.replace(/\W+/g, '-')}-${consumers}`;
  await publish(queue, MESSAGES);
  count = 0;
  const child = start(queue);
  const deadline = Date.now() + TIMEOUT_MS;
  let cpuStart = 0;
  while (count < MESSAGES) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name}: ${count}/${MESSAGES} events after ${TIMEOUT_MS} ms`);
    }
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    if (count > 0 && !cpuStart) cpuStart = cpuMicros(child.pid!);
    await new Promise((r) => setTimeout(r, count > 0 ? 5 : 20));
  }
  const cpu = cpuMicros(child.pid!) - cpuStart;
  const rss = rssMiB(child.pid!);
  const seconds = (lastAt - firstAt) / 1000;
  await new Promise<void>((r) => {
    child.once('exit', () => r());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
  return {
    name,
    consumers,
    msgsPerSec: Math.round((MESSAGES - 1) / seconds),
    seconds: Math.round(seconds * 100) / 100,
    rssMiB: rss,
    cpuUsPerMsg: Math.round(cpu / MESSAGES),
  };
}

const env = { ...process.env, HUBVENDOR_AMQP_USERNAME: USER, HUBVENDOR_AMQP_PASSWORD: PASSWORD };
const baseline = (consumers: number) => (queue: string) =>
  spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/hubvendor-payment-inbound/baseline.ts', AMQP_URL, queue, sinkUrl, String(consumers)],
    { env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
const engine = (consumers: number) => (queue: string) =>
  spawn(
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
      `hubvendor-amqp-url=${AMQP_URL}`,
      '--set',
      `hubvendor-amqp-queue-name=${queue}`,
      '--set',
      `asb.producer.apiUri=${sinkUrl}`,
      '--set',
      `source.concurrent.threads=${consumers}`,
    ],
    { env: { ...env, LOG_LEVEL: process.env.ENGINE_LOG_LEVEL ?? 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] },
  );

const results: Result[] = [];
try {
  for (const c of [1, 4]) {
    results.push(await runCase('baseline (hand-written rhea + undici)', c, baseline(c)));
    results.push(await runCase('engine (payment-status-inbound route)', c, engine(c)));
  }
} finally {
  sink.closeAllConnections();
  sink.close();
}

const lines = [
  `Payment inbound: ${MESSAGES} messages per case, RabbitMQ ${AMQP_URL}, transacted acknowledgement, ${new Date().toISOString()}, node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}`,
  '',
  '| consumer | consumers | msgs/s | vs baseline | seconds | CPU µs/msg | RSS MiB |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...results.map((r) => {
    const base = results.find((b) => b.consumers === r.consumers && b.name.startsWith('baseline'))!;
    return `| ${r.name} | ${r.consumers} | ${r.msgsPerSec} | ${Math.round((r.msgsPerSec / base.msgsPerSec) * 100)}% | ${r.seconds} | ${r.cpuUsPerMsg} | ${r.rssMiB} |`;
  }),
];
console.log(lines.join('\n'));
