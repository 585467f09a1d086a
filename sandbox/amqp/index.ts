// The embedded AMQP 1.0 endpoint: a tiny broker on rhea's `listen`, so that `npm start` shows the
// payment inbound connector working with no broker installed. Queues are created on first use
// (address `name`, `/queue/name` or `/amq/queue/name`, as on RabbitMQ). It honours link credit,
// keeps every delivery unsettled until the consumer's disposition: `accepted` removes the message,
// `released` (and `modified`) puts it back at the head of its queue for redelivery (first_acquirer
// false), `rejected` moves it to the queue's dead letters. Messages of a consumer that goes away
// unsettled are redelivered. SASL PLAIN with the sandbox's demo credentials (or ANONYMOUS when
// no credentials are configured). Not a production broker: in memory, bounded.

import { randomUUID } from 'node:crypto';
import type { AddressInfo, Server } from 'node:net';
import rhea from 'rhea';
import type { Connection, Delivery, EventContext, Message, Sender } from 'rhea';
import type { SimLog } from '../lib/sim-server.ts';
import { messageIdString, settle } from '../../engine/amqp/rhea-util.ts';

/** The sandbox's demo credentials (values/environments/sandbox.yaml), not secrets of any system. */
export const SANDBOX_AMQP_USERNAME = 'sandbox';
export const SANDBOX_AMQP_PASSWORD = 'sandbox-amqp-password';
/** The queue the hubvendor simulator publishes payment status messages to (key hubvendor-amqp-queue-name). */
const PAYMENT_STATUS_QUEUE = 'payment-status';

export interface AmqpEndpointOptions {
  port?: number;
  host?: string;
  log?: SimLog;
  /** SASL PLAIN credentials; both null allows ANONYMOUS (default: the sandbox demo credentials) */
  username?: string | null;
  password?: string | null;
  /** messages kept per queue before publishers are refused (default 100,000) */
  maxMessages?: number;
  /** dead letters kept per queue (default 1,000) */
  maxDeadLetters?: number;
}

export interface StoredMessage {
  message_id?: unknown;
  correlation_id?: unknown;
  subject?: string;
  content_type?: string;
  application_properties?: Record<string, unknown>;
  creation_time?: Date;
  body: unknown;
  /** deliveries that ended in `released`/`modified` or with the consumer gone */
  redeliveries: number;
}

export interface DeadLetter {
  message: StoredMessage;
  condition?: string;
  description?: string;
  at: string;
}

export interface QueueStats {
  /** messages waiting */
  ready: number;
  /** messages delivered and not settled yet */
  unacked: number;
  consumers: number;
  published: number;
  accepted: number;
  released: number;
  rejected: number;
  redelivered: number;
  /** oldest messages dropped by `publish` on a full queue */
  dropped: number;
}

export interface AmqpEndpoint {
  /** amqp://127.0.0.1:PORT (no credentials) */
  url: string;
  port: number;
  /** enqueues a message as a publisher would */
  publish(queue: string, message: Partial<StoredMessage> & { body: unknown }): void;
  stats(queue: string): QueueStats;
  deadLetters(queue: string): DeadLetter[];
  queues(): string[];
  /** resolves once the queue has no ready and no unacked message, or rejects after timeoutMs */
  waitForEmpty(queue: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** `/queue/x`, `/amq/queue/x` and `x` are the same queue. */
function queueName(address: string | undefined): string {
  const a = String(address ?? '');
  return a.replace(/^\/amq\/queue\//, '').replace(/^\/queue\//, '');
}

interface Consumer {
  sender: Sender;
  connection: Connection;
  /** deliveries handed to rhea and not written yet: rhea takes the credit only when it writes */
  pending: Delivery[];
}

/** Credit the consumer has left, counting what rhea has queued but not sent. */
function creditLeft(c: Consumer): number {
  if (!c.sender.is_open()) return 0;
  const next = (c.sender as unknown as { session: { outgoing: { next_pending_delivery: number } } }).session.outgoing
    .next_pending_delivery;
  c.pending = c.pending.filter((d) => d.id >= next);
  return (c.sender as unknown as { credit: number }).credit - c.pending.length;
}

interface Queue {
  name: string;
  messages: StoredMessage[];
  unacked: Map<Delivery, { message: StoredMessage; consumer: Consumer }>;
  consumers: Consumer[];
  next: number;
  dead: DeadLetter[];
  stats: Omit<QueueStats, 'ready' | 'unacked' | 'consumers'>;
}

export async function startAmqpEndpoint(opts: AmqpEndpointOptions = {}): Promise<AmqpEndpoint> {
  const log = opts.log ?? (() => {});
  const maxMessages = opts.maxMessages ?? 100_000;
  const maxDead = opts.maxDeadLetters ?? 1_000;
  const username = opts.username === undefined ? SANDBOX_AMQP_USERNAME : opts.username;
  const password = opts.password === undefined ? SANDBOX_AMQP_PASSWORD : opts.password;
  const container = rhea.create_container({ id: 'sandbox-amqp' });
  if (username !== null || password !== null) {
    container.sasl_server_mechanisms.enable_plain((u: string, p: string) => {
      const ok = u === username && p === password;
      if (!ok) log('amqp: authentication failed', { user: u });
      return ok;
    });
  } else {
    container.sasl_server_mechanisms.enable_anonymous();
  }
  const queues = new Map<string, Queue>();
  const waiters = new Set<() => void>();
  const queue = (name: string): Queue => {
    let q = queues.get(name);
    if (!q) {
      q = {
        name,
        messages: [],
        unacked: new Map(),
        consumers: [],
        next: 0,
        dead: [],
        stats: { published: 0, accepted: 0, released: 0, rejected: 0, redelivered: 0, dropped: 0 },
      };
      queues.set(name, q);
    }
    return q;
  };
  const notify = () => {
    for (const w of [...waiters]) w();
  };

  const dispatch = (q: Queue) => {
    while (q.messages.length && q.consumers.length) {
      let picked: Consumer | undefined;
      for (let i = 0; i < q.consumers.length; i++) {
        const c = q.consumers[(q.next + i) % q.consumers.length]!;
        if (creditLeft(c) > 0) {
          picked = c;
          q.next = (q.next + i + 1) % q.consumers.length;
          break;
        }
      }
      if (!picked) return;
      const m = q.messages.shift()!;
      const msg: Message = {
        body: m.body,
        ...(m.message_id !== undefined ? { message_id: m.message_id as string } : {}),
        ...(m.correlation_id !== undefined ? { correlation_id: m.correlation_id as string } : {}),
        ...(m.subject !== undefined ? { subject: m.subject } : {}),
        ...(m.content_type !== undefined ? { content_type: m.content_type } : {}),
        ...(m.application_properties ? { application_properties: m.application_properties } : {}),
        ...(m.creation_time ? { creation_time: m.creation_time } : {}),
        first_acquirer: m.redeliveries === 0,
        delivery_count: m.redeliveries,
      };
      const d = picked.sender.send(msg);
      picked.pending.push(d);
      q.unacked.set(d, { message: m, consumer: picked });
    }
  };

  const requeue = (q: Queue, m: StoredMessage) => {
    m.redeliveries++;
    q.stats.redelivered++;
    q.messages.unshift(m);
  };

  /** The consumer went away: its unsettled messages go back to the head of the queue, in order. */
  const dropConsumer = (match: (c: Consumer) => boolean) => {
    for (const q of queues.values()) {
      const before = q.consumers.length;
      q.consumers = q.consumers.filter((c) => !match(c));
      const back: StoredMessage[] = [];
      for (const [d, u] of q.unacked) {
        if (match(u.consumer)) {
          q.unacked.delete(d);
          back.push(u.message);
        }
      }
      for (const m of back.reverse()) requeue(q, m);
      if (before !== q.consumers.length || back.length) dispatch(q);
    }
    notify();
  };

  const onOutcome = (ctx: EventContext, outcome: 'accepted' | 'released' | 'rejected' | 'modified') => {
    const d = ctx.delivery!;
    const q = queues.get(queueName(ctx.sender?.source?.address));
    const u = q?.unacked.get(d);
    if (!q || !u) return;
    q.unacked.delete(d);
    if (outcome === 'accepted') q.stats.accepted++;
    else if (outcome === 'rejected') {
      q.stats.rejected++;
      const err = (d.remote_state as { error?: { condition?: string; description?: string } } | undefined)?.error;
      q.dead.push({
        message: u.message,
        condition: err?.condition,
        description: err?.description,
        at: new Date().toISOString(),
      });
      if (q.dead.length > maxDead) q.dead.shift();
      log('amqp: message rejected', {
        queue: q.name,
        messageId: messageIdString(u.message.message_id),
        condition: err?.condition,
        description: err?.description,
      });
    } else {
      q.stats.released++;
      requeue(q, u.message);
    }
    dispatch(q);
    notify();
  };

  container.on('sender_open', (ctx: EventContext) => {
    const sender = ctx.sender!;
    const address = (sender as unknown as { remote: { attach: { source?: { address?: string } } } }).remote.attach
      .source?.address;
    const name = queueName(address);
    if (!name) {
      sender.close({ condition: 'amqp:invalid-field', description: 'a queue address is required' });
      return;
    }
    sender.set_source({ address: address! });
    const q = queue(name);
    q.consumers.push({ sender, connection: ctx.connection, pending: [] });
    log('amqp: consumer attached', { queue: name });
    dispatch(q);
  });
  container.on('sendable', (ctx: EventContext) => {
    const q = queues.get(queueName(ctx.sender?.source?.address));
    if (q) dispatch(q);
  });
  container.on('accepted', (ctx: EventContext) => onOutcome(ctx, 'accepted'));
  container.on('released', (ctx: EventContext) => onOutcome(ctx, 'released'));
  container.on('modified', (ctx: EventContext) => onOutcome(ctx, 'modified'));
  container.on('rejected', (ctx: EventContext) => onOutcome(ctx, 'rejected'));
  container.on('sender_close', (ctx: EventContext) => dropConsumer((c) => c.sender === ctx.sender));
  container.on('connection_close', (ctx: EventContext) => dropConsumer((c) => c.connection === ctx.connection));
  container.on('disconnected', (ctx: EventContext) => dropConsumer((c) => c.connection === ctx.connection));

  container.on('receiver_open', (ctx: EventContext) => {
    const receiver = ctx.receiver!;
    const address = (receiver as unknown as { remote: { attach: { target?: { address?: string } } } }).remote.attach
      .target?.address;
    const name = queueName(address);
    if (!name) {
      receiver.close({ condition: 'amqp:invalid-field', description: 'a queue address is required' });
      return;
    }
    receiver.set_target({ address: address! });
  });
  container.on('message', (ctx: EventContext) => {
    const name = queueName(ctx.receiver?.target?.address);
    const q = queue(name);
    if (q.messages.length >= maxMessages) {
      settle(ctx.delivery!, {
        outcome: 'rejected',
        condition: 'amqp:resource-limit-exceeded',
        description: `queue '${name}' holds ${maxMessages} messages`,
      });
      return;
    }
    const m = ctx.message as Message;
    enqueue(q, m as unknown as Partial<StoredMessage> & { body: unknown });
    settle(ctx.delivery!, { outcome: 'accepted' });
  });
  container.on('error', (e: unknown) => log('amqp: error', { err: e instanceof Error ? e.message : String(e) }));
  container.on('connection_error', () => {
    /* the peer closed with an error; handled by disconnected */
  });

  const enqueue = (q: Queue, m: Partial<StoredMessage> & { body: unknown }) => {
    q.messages.push({
      message_id: m.message_id,
      correlation_id: m.correlation_id,
      subject: m.subject,
      content_type: m.content_type,
      application_properties: m.application_properties,
      creation_time: m.creation_time,
      body: m.body,
      redeliveries: 0,
    });
    q.stats.published++;
    dispatch(q);
  };

  const server: Server = container.listen({
    port: opts.port ?? 0,
    host: opts.host ?? '127.0.0.1',
  } as never) as unknown as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `amqp://${opts.host ?? '127.0.0.1'}:${port}`;
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  log('amqp: listening', { url });

  return {
    url,
    port,
    publish(name, message) {
      const q = queue(queueName(name));
      // in-process publishers (the hubvendor hook) never fail: past the bound the oldest message goes
      if (q.messages.length >= maxMessages) {
        q.messages.shift();
        q.stats.dropped++;
      }
      enqueue(q, { message_id: randomUUID(), ...message });
    },
    stats(name) {
      const q = queue(queueName(name));
      return { ready: q.messages.length, unacked: q.unacked.size, consumers: q.consumers.length, ...q.stats };
    },
    deadLetters(name) {
      return [...queue(queueName(name)).dead];
    },
    queues() {
      return [...queues.keys()];
    },
    waitForEmpty(name, timeoutMs = 5000) {
      const q = queue(queueName(name));
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (q.messages.length === 0 && q.unacked.size === 0) {
            waiters.delete(check);
            clearTimeout(t);
            resolve();
          }
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `queue '${q.name}' not empty after ${timeoutMs} ms (${q.messages.length} ready, ${q.unacked.size} unacked)`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

/**
 * The hubvendor simulator's `onPaymentStatus` hook: each status change becomes a message on the
 * payment status queue, JSON text with a fresh message id, as the vendor would publish it; with the
 * W3C trace context of the order's creation as an application property, so the status exchanges
 * continue the trace of the exchange that created the order.
 */
export function paymentStatusPublisher(endpoint: AmqpEndpoint, queue = PAYMENT_STATUS_QUEUE) {
  return (msg: object, trace?: { traceparent: string }): void => {
    endpoint.publish(queue, {
      message_id: randomUUID(),
      ...(trace ? { application_properties: { traceparent: trace.traceparent } } : {}),
      content_type: 'application/json',
      subject: 'PaymentOrderStatus',
      creation_time: new Date(),
      body: JSON.stringify(msg),
    });
  };
}
