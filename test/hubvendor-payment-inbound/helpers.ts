// Helpers of the payment inbound tests: a rhea publisher and drainer for the real RabbitMQ
// (127.0.0.1:5672, AMQP 1.0 plugin), unique queue names per run, status messages, captured logs,
// and an event hub sink that measures how many events are in flight at once.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import rhea from 'rhea';
import type { Connection, Message } from 'rhea';
import { createLogger } from '../../engine/observability/logger.ts';

export const BROKER_URL = process.env.TEST_AMQP_URL ?? 'amqp://127.0.0.1:5672';
export const BROKER_USER = process.env.TEST_AMQP_USERNAME ?? 'guest';
export const BROKER_PASSWORD = process.env.TEST_AMQP_PASSWORD ?? 'guest';
const RUN = randomUUID().slice(0, 8);

/** `/queue/pi-<tag>-<run>`: RabbitMQ 3.x declares it on first attach. */
export function uniqueQueue(tag: string): string {
  return `/queue/pi-${tag}-${RUN}`;
}

export interface OpenOptions {
  url?: string;
  username?: string;
  password?: string;
  timeoutMs?: number;
}

/** Opens a connection or rejects with the broker's reason: the suite fails, never skips, without a broker. */
export function openConnection(o: OpenOptions = {}): Promise<Connection> {
  const u = new URL(o.url ?? BROKER_URL);
  const container = rhea.create_container({ id: `test-${randomUUID().slice(0, 8)}` });
  return new Promise((resolve, reject) => {
    const conn = container.connect({
      host: u.hostname,
      port: Number(u.port || 5672),
      username: o.username ?? BROKER_USER,
      password: o.password ?? BROKER_PASSWORD,
      reconnect: false,
    });
    const t = setTimeout(() => {
      conn.close();
      reject(new Error(`AMQP broker ${u.host} did not open a connection within ${o.timeoutMs ?? 8000} ms`));
    }, o.timeoutMs ?? 8000);
    conn.once('connection_open', () => {
      clearTimeout(t);
      resolve(conn);
    });
    conn.once('connection_error', (ctx) => {
      clearTimeout(t);
      reject(new Error(`AMQP broker ${u.host} refused the connection: ${JSON.stringify(ctx.connection.error)}`));
    });
    conn.once('disconnected', (ctx) => {
      clearTimeout(t);
      reject(
        new Error(
          `AMQP broker ${u.host} unreachable (RabbitMQ with rabbitmq_amqp1_0 is required, see docs/connectors/payment-inbound.md): ${ctx.error?.message ?? 'disconnected'}`,
        ),
      );
    });
    container.on('error', () => {});
  });
}

/** Sends the messages and resolves once the broker accepted every one. */
export async function publish(address: string, messages: Message[], o: OpenOptions = {}): Promise<void> {
  const conn = await openConnection(o);
  try {
    await new Promise<void>((resolve, reject) => {
      const sender = conn.open_sender({ target: { address } });
      let next = 0;
      let settled = 0;
      const pump = () => {
        while (next < messages.length && sender.sendable()) sender.send(messages[next++]!);
      };
      sender.on('sendable', pump);
      sender.on('accepted', () => {
        if (++settled === messages.length) resolve();
      });
      sender.on('rejected', (ctx) =>
        reject(new Error(`broker rejected a message: ${JSON.stringify(ctx.delivery?.remote_state)}`)),
      );
      sender.on('sender_error', (ctx) => reject(new Error(`sender failed: ${JSON.stringify(ctx.sender?.error)}`)));
      if (!messages.length) resolve();
    });
  } finally {
    conn.close();
  }
}

/** Receives (and accepts) whatever the queue still holds within `ms`. */
export async function drain(address: string, ms = 500): Promise<Message[]> {
  const conn = await openConnection();
  const got: Message[] = [];
  await new Promise<void>((resolve) => {
    const r = conn.open_receiver({ source: { address }, credit_window: 100, autoaccept: true });
    r.on('message', (ctx) => {
      got.push(ctx.message);
    });
    setTimeout(resolve, ms);
  });
  conn.close();
  return got;
}

let seq = 0;
export function statusMessage(over: Record<string, unknown> = {}, id?: string): Message {
  const n = ++seq;
  const body = {
    paymentOrderId: `PO${RUN}${String(n).padStart(6, '0')}`,
    endToEndReference: `E2E-${n}`,
    status: n % 5 === 0 ? 'REJECTED' : 'PROCESSED',
    statusReasonCode: n % 5 === 0 ? 'AC04' : null,
    statusDateTime: new Date().toISOString(),
    ...over,
  };
  return { message_id: id ?? `msg-${RUN}-${n}`, content_type: 'application/json', body: JSON.stringify(body) };
}

export function bodyOf(m: Message): any {
  return JSON.parse(m.body as string);
}

/** A logger writing JSON lines into `lines` (info and above). */
export function captureLogs(): { logger: ReturnType<typeof createLogger>; lines: any[]; text: () => string } {
  const lines: any[] = [];
  const raw: string[] = [];
  const dest = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) {
        if (!l) continue;
        raw.push(l);
        try {
          lines.push(JSON.parse(l));
        } catch {
          /* not JSON */
        }
      }
      cb();
    },
  });
  return { logger: createLogger('info', dest), lines, text: () => raw.join('\n') };
}

export interface CountingSink {
  url: string;
  events: any[];
  maxInFlight: number;
  inFlight: number;
  /** answer this status instead of 202 while set */
  failWith?: number;
  delayMs: number;
  close(): Promise<void>;
}

/** An event hub sink on node:http that counts concurrent requests (for the concurrency test). */
export async function startCountingSink(delayMs = 0): Promise<CountingSink> {
  const sink: CountingSink = { url: '', events: [], maxInFlight: 0, inFlight: 0, delayMs, close: async () => {} };
  const server: Server = createServer((req, res) => {
    sink.inFlight++;
    sink.maxInFlight = Math.max(sink.maxInFlight, sink.inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        sink.inFlight--;
        if (sink.failWith) {
          res.writeHead(sink.failWith).end();
          return;
        }
        sink.events.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":1}');
      }, sink.delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  sink.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return sink;
}

export async function until(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  stepMs = 50,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
