// from: amqp — consumes messages from AMQP 1.0 queues (rhea) and runs the route once per message.
//
// Queues come from a mapping `<queue_name>><route_identifier>` (several entries, comma or newline
// separated; `source.queue.route.mapping`): a route consumes every queue mapped to its id.
// `consumers` receiver links per queue, each with `prefetch` credit, bound the messages in flight.
//
// transacted (default): a message is accepted only after the route ended without error, that is
// after its event was accepted by the event hub. A transient failure (event hub 5xx or 429, a
// timeout, a connection error, the engine shutting down) releases it and the broker redelivers it;
// the consumer then pauses with exponential backoff so a down event hub is not hammered. A
// permanent failure (body not JSON, schema violation, event hub 4xx) rejects it, logged at error
// level with the message id and the reason. transacted: false accepts on arrival (at most once).
//
// A message that fails for good is first recorded as a failed exchange (store/failed-recorder.ts)
// with its body, headers and what a replay needs, then rejected so the queue moves on; when the
// store cannot be reached it is released instead, never lost. A poison message, one that fails
// transiently on every delivery, is recorded and rejected at its `max-deliveries`th delivery:
// RabbitMQ 3.x classic queues do not count deliveries (only first_acquirer), so each consumer
// counts them per stable message id in a bounded map. Releases while the event hub is down do
// not count: that is the event hub's outage, not the message's fault.
//
// Backpressure: while the circuit breaker of a client the route calls is open, the consumer asks
// for no message (its links get no credit), so the queue keeps them rather than the consumer
// taking and releasing them in a loop; when the breaker goes half-open it takes one message, the
// probe, and when the probe succeeds (the breaker closes) every link gets its credit again.
//
// The connection is re-established for ever with exponential backoff; `/health/ready` is false
// while it is down, and each failed attempt logs one warning. Credentials are never logged.
// A reload that changes the route stops this consumer (messages in flight finish and are
// settled) and starts a new one; an unchanged route keeps its connection.

import { randomUUID } from 'node:crypto';
import type { Connection, Container, EventContext, Message, Receiver } from 'rhea';
import type { Logger } from 'pino';
import type { ClientGuard } from '../outbound/client-guard.ts';
import type { BreakerState } from '../outbound/circuit-breaker.ts';
import { defineSource, type SourceHost } from './source-kind.ts';
import type { CompileContext } from '../pipeline/compile-context.ts';
import { createExchange } from '../pipeline/exchange.ts';
import { runRoute, type CompiledRoute } from '../pipeline/route.ts';
import { PlatformError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { newCorrelationId } from '../core/correlation-id.ts';
import { failedRecorderFor, type FailedRecorder } from '../store/failed-recorder.ts';
import {
  parseAmqpUrl,
  redactUrl,
  messageIdString,
  bodyOf,
  contentId,
  settle,
  type AmqpAddress,
  type Outcome,
} from '../amqp/rhea-util.ts';

type Num = number | string;

/** Default of `max-deliveries` (source.maxDeliveries). */
const MAX_DELIVERIES = 10;
/** Messages whose failed deliveries one consumer remembers; the least recently failed go first. */
const COUNTED_MESSAGES = 10_000;
type Bool = boolean | string;

interface AmqpConfig {
  provider?: 'amqp';
  url: string;
  username?: string;
  password?: string;
  mapping: string | string[];
  consumers?: Num;
  prefetch?: Num;
  transacted?: Bool;
  content?: 'json' | 'text';
  reconnect?: { delay?: Num; 'max-delay'?: Num; multiplier?: Num };
  'release-backoff'?: { delay?: Num; 'max-delay'?: Num; multiplier?: Num };
  'drain-timeout'?: Num;
  'max-deliveries'?: Num;
}

interface Backoff {
  delay: number;
  maxDelay: number;
  multiplier: number;
}

interface Compiled {
  url: string;
  address?: AmqpAddress;
  username?: string;
  password?: string;
  queues: string[];
  consumers: number;
  prefetch: number;
  transacted: boolean;
  content: 'json' | 'text';
  reconnect: Backoff;
  releaseBackoff: Backoff;
  drainTimeout: number;
  /** deliveries that failed transiently before a message is recorded and rejected as poison; 0: no limit */
  maxDeliveries: number;
  /** where the user name and password are set, named by an authentication failure */
  credentials: string;
}

const num = {
  anyOf: [
    { type: 'number', minimum: 0 },
    { type: 'string', pattern: '^\\d+(\\.\\d+)?$' },
  ],
};
const bool = { anyOf: [{ type: 'boolean' }, { enum: ['true', 'false'] }] };
const backoffSchema = (what: string, d: Backoff) => ({
  type: 'object',
  additionalProperties: false,
  description: `${what}: exponential backoff`,
  properties: {
    delay: { ...num, default: d.delay, description: 'first pause, ms' },
    'max-delay': { ...num, default: d.maxDelay, description: 'longest pause, ms' },
    multiplier: { ...num, default: d.multiplier, description: 'factor between one pause and the next' },
  },
});

const toBool = (v: Bool | undefined, d: boolean) => (v === undefined ? d : v === true || v === 'true');
const toBackoff = (c: AmqpConfig['reconnect'], d: Backoff): Backoff => ({
  delay: c?.delay !== undefined ? Number(c.delay) : d.delay,
  maxDelay: c?.['max-delay'] !== undefined ? Number(c['max-delay']) : d.maxDelay,
  multiplier: c?.multiplier !== undefined ? Number(c.multiplier) : d.multiplier,
});
const nextDelay = (b: Backoff, attempt: number) =>
  Math.min(b.maxDelay, b.delay * Math.pow(b.multiplier > 0 ? b.multiplier : 1, Math.max(0, attempt - 1)));

/** Parses `q1>route-a, q2>route-b` (commas or newlines); the last `>` splits queue and route. */
export function parseMapping(mapping: string | string[]): { queue: string; route: string }[] {
  const entries = (Array.isArray(mapping) ? mapping : String(mapping).split(/[,\n]/))
    .map((e) => String(e).trim())
    .filter(Boolean);
  return entries.map((e) => {
    const i = e.lastIndexOf('>');
    const queue = i > 0 ? e.slice(0, i).trim() : '';
    const route = i > 0 ? e.slice(i + 1).trim() : '';
    if (!queue || !route) throw new Error(`entry '${e}' is not of the form <queue_name>><route_identifier>`);
    return { queue, route };
  });
}

export default defineSource<AmqpConfig>({
  kind: 'amqp',
  description:
    'Consumes an AMQP 1.0 queue (rhea); acknowledges each message after the route succeeded (transacted), releases it on a transient failure, records it as a failed exchange and rejects it on a permanent one or past max-deliveries.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'mapping'],
    properties: {
      provider: {
        const: 'amqp',
        default: 'amqp',
        description: "listener provider (source.provider); only 'amqp' (AMQP 1.0)",
      },
      url: {
        type: 'string',
        description: 'broker URL, amqp://host[:port] or amqps://host[:port] (amqp.connection.url)',
      },
      username: {
        type: 'string',
        description: 'SASL PLAIN user name (amqp.connection.username); anonymous when absent',
      },
      password: { type: 'string', description: 'SASL PLAIN password (amqp.connection.password); never logged' },
      mapping: {
        anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
        description:
          '<queue_name>><route_identifier> entries, comma separated (source.queue.route.mapping); this route consumes the queues mapped to its id',
      },
      consumers: { ...num, default: 1, description: 'receiver links per queue (source.concurrent.threads)' },
      prefetch: { ...num, default: 1, description: 'credit per receiver link: messages in flight per consumer' },
      transacted: {
        ...bool,
        default: true,
        description:
          'accept only after the route succeeded (inbound.listener.transacted); false accepts on arrival (at most once)',
      },
      content: {
        enum: ['json', 'text'],
        default: 'json',
        description: 'json: the body is parsed and a message that is not JSON is rejected; text: the body is a string',
      },
      reconnect: backoffSchema('pause between connection attempts', { delay: 1000, maxDelay: 30_000, multiplier: 2 }),
      'release-backoff': backoffSchema('pause of a consumer after a release', {
        delay: 500,
        maxDelay: 15_000,
        multiplier: 2,
      }),
      'drain-timeout': {
        ...num,
        default: 10_000,
        description: 'at shutdown, time given to messages in flight to finish, ms',
      },
      'max-deliveries': {
        ...num,
        default: MAX_DELIVERIES,
        description:
          'a message delivered this many times, failing transiently each time (not an event hub outage), is recorded as a failed exchange and rejected (source.maxDeliveries); 0: redelivered for ever',
      },
    },
  },
  compile(cfg, ctx) {
    // lint runs without simulators: their URLs are stand-ins (http://127.0.0.1:9/<name>), checked
    // when the engine runs; an environmental key that does not resolve (<unresolved:key>) is said by itself
    const standIn =
      /^<unresolved:/.test(cfg.url) || (ctx.services.lintOnly && /^http:\/\/127\.0\.0\.1:9\//.test(cfg.url));
    let address: AmqpAddress | undefined;
    if (!standIn) {
      try {
        address = parseAmqpUrl(cfg.url);
      } catch (e) {
        ctx.fail(`${(e as Error).message}${named(ctx.propertiesAt(['url']))}`, ['url']);
      }
    }
    let entries: { queue: string; route: string }[] = [];
    try {
      entries = parseMapping(cfg.mapping);
    } catch (e) {
      ctx.fail(`${(e as Error).message}${named(ctx.propertiesAt(['mapping']))}`, ['mapping']);
    }
    const queues = entries.filter((e) => e.route === ctx.route.id).map((e) => e.queue);
    if (!queues.length) {
      ctx.fail(
        `the mapping maps no queue to this route '${ctx.route.id}'${named(ctx.propertiesAt(['mapping']))}; entries: ${entries.map((e) => `${e.queue}>${e.route}`).join(', ') || 'none'}`,
        ['mapping'],
      );
    }
    const consumers = Number(cfg.consumers ?? 1);
    if (!Number.isInteger(consumers) || consumers < 1)
      ctx.fail(`consumers must be an integer >= 1, got ${cfg.consumers}${named(ctx.propertiesAt(['consumers']))}`, [
        'consumers',
      ]);
    const prefetch = Number(cfg.prefetch ?? 1);
    if (!Number.isInteger(prefetch) || prefetch < 1)
      ctx.fail(`prefetch must be an integer >= 1, got ${cfg.prefetch}`, ['prefetch']);
    if (cfg.password && !cfg.username && !address?.username) ctx.fail('a password needs a username', ['password']);
    const maxDeliveries = Number(cfg['max-deliveries'] ?? MAX_DELIVERIES);
    if (!Number.isInteger(maxDeliveries) || maxDeliveries < 0)
      ctx.fail(
        `max-deliveries must be an integer >= 0, got ${cfg['max-deliveries']}${named(ctx.propertiesAt(['max-deliveries']))}`,
        ['max-deliveries'],
      );
    const compiled: Compiled = {
      url: cfg.url,
      address,
      username: cfg.username || address?.username,
      password: cfg.password || address?.password,
      queues: [...new Set(queues)],
      consumers,
      prefetch,
      transacted: toBool(cfg.transacted, true),
      content: cfg.content ?? 'json',
      reconnect: toBackoff(cfg.reconnect, { delay: 1000, maxDelay: 30_000, multiplier: 2 }),
      releaseBackoff: toBackoff(cfg['release-backoff'], { delay: 500, maxDelay: 15_000, multiplier: 2 }),
      drainTimeout: Number(cfg['drain-timeout'] ?? 10_000),
      maxDeliveries,
      credentials: credentialSources(ctx),
    };
    // never keep the password where `engine routes` or a log could print the config
    Object.defineProperty(compiled, 'password', { enumerable: false });
    return compiled;
  },
  async start(route, compiled, host) {
    const c = compiled as Compiled;
    // the AMQP client loads with the first route consuming a queue, not at every engine start
    const { default: rhea } = await import('./rhea.ts');
    const consumer = new AmqpConsumer(route, c, host, rhea);
    const key = `amqp:${route.id}`;
    const ready = () => consumer.ready;
    host.services.readiness.set(key, ready);
    consumer.start();
    return {
      stop: async () => {
        await consumer.close();
        // a reload's new consumer of the same route may hold the key by now
        if (host.services.readiness.get(key) === ready) host.services.readiness.delete(key);
      },
      retarget: (r) => consumer.retarget(r),
    };
  },
});

/**
 * Where the route's user name and password come from, for an authentication failure: the
 * environmental keys its properties name (the connector's values), else those properties, else the
 * route's own `from.amqp` fields.
 */
function credentialSources(ctx: CompileContext): string {
  const of = (field: 'username' | 'password'): string[] => {
    const props = ctx.propertiesAt([field]);
    const keys = props.flatMap((p) => ctx.values?.envKeysOf(p) ?? []);
    return keys.length ? keys : props.length ? props : [`from.amqp.${field}`];
  };
  return [...new Set([...of('username'), ...of('password')])].join(' / ');
}

function named(props: string[]): string {
  return props.length ? ` (property ${props.map((p) => `'${p}'`).join(', ')})` : '';
}

interface Slot {
  queue: string;
  index: number;
  receiver?: Receiver;
  /** messages of this link being processed */
  inFlight: number;
  /** consecutive releases, for the pause before asking for more */
  releases: number;
  paused?: NodeJS.Timeout;
}

/** What the route's client breakers let the consumer take: `prefetch` per link, one probe message, nothing. */
type Gate = 'flow' | 'probe' | 'shut';

const creditOf = (r: Receiver) => (r as unknown as { credit: number }).credit;

/** One connection per route; `consumers` receiver links per queue on it. */
class AmqpConsumer {
  private readonly container: Container;
  private readonly log: Logger;
  private conn?: Connection;
  private attempt = 0;
  private lastError?: string;
  private timer?: NodeJS.Timeout;
  private closing = false;
  private readonly slots: Slot[] = [];
  private inFlight = 0;
  private drained?: () => void;
  private readonly abort = new AbortController();
  private readonly where: string;
  private readonly recorder: FailedRecorder;
  /** failed deliveries per stable message id (a bounded LRU: Map order is recency) */
  private readonly failures = new Map<string, { count: number; firstAt: Date }>();
  /** the client whose open breaker paused the consumer (one log line at pause, one at resume) */
  private heldBy?: string;
  private unsubscribe?: () => void;

  constructor(
    private route: CompiledRoute,
    private readonly c: Compiled,
    private readonly host: SourceHost,
    rhea: typeof import('rhea'),
  ) {
    this.container = rhea.create_container({ id: `engine-${route.id}-${process.pid}` });
    // errors are handled per connection; never let rhea throw an unhandled 'error' event
    this.container.on('error', (e: unknown) => this.log.warn({ err: errText(e) }, 'AMQP error'));
    this.log = host.services.logger.child({ route: route.id, source: 'amqp' });
    this.where = redactUrl(c.url);
    this.recorder = failedRecorderFor(host.services);
    for (const queue of c.queues)
      for (let i = 0; i < c.consumers; i++) this.slots.push({ queue, index: i, inFlight: 0, releases: 0 });
  }

  get ready(): boolean {
    return !!this.conn && this.conn.is_open() && this.slots.every((s) => s.receiver?.is_open());
  }

  start(): void {
    this.unsubscribe = this.host.services.http.guards.onChange((g, to) => this.onBreaker(g, to));
    this.sync();
    this.connect();
  }

  /** Later messages run this copy of the route (same id and source config, newly compiled). */
  retarget(route: CompiledRoute): void {
    this.route = route;
    // the reload may have replaced a client's guard (new settings, a closed breaker)
    this.sync();
    for (const s of this.slots) this.topUp(s);
  }

  /** The breakers of the clients the route calls now (a reload may change them). */
  private gate(): { gate: Gate; client?: string } {
    let probe: string | undefined;
    for (const g of this.host.services.http.guards.ofRoute(this.route.id)) {
      const state = g.breaker?.state;
      if (state === 'open') return { gate: 'shut', client: g.label };
      if (state === 'half-open') probe ??= g.label;
    }
    return probe ? { gate: 'probe', client: probe } : { gate: 'flow' };
  }

  private onBreaker(guard: ClientGuard, to: BreakerState): void {
    if (this.closing || !this.host.services.http.guards.ofRoute(this.route.id).includes(guard)) return;
    this.sync();
    if (to === 'open') return;
    // half-open or closed: the breaker's own wait replaces the release backoff of the outage
    for (const s of this.slots) {
      s.releases = 0;
      if (s.paused) {
        clearTimeout(s.paused);
        s.paused = undefined;
      }
    }
    for (const s of this.slots) this.topUp(s);
  }

  /** Logs the pause when a breaker of the route opens, the resume when none is open or half-open any more. */
  private sync(): void {
    const { gate, client } = this.gate();
    if (gate === 'shut' && !this.heldBy) {
      this.heldBy = client;
      this.log.warn(
        { client, inFlight: this.inFlight },
        `AMQP consumer paused: the circuit breaker of client '${client}' is open; messages stay in the queue until a probe message succeeds`,
      );
    } else if (gate === 'flow' && this.heldBy) {
      this.log.info(
        { client: this.heldBy },
        `AMQP consumer resumed: the circuit breaker of client '${this.heldBy}' closed`,
      );
      this.heldBy = undefined;
    }
  }

  private connect(): void {
    if (this.closing) return;
    const a = this.c.address ?? parseAmqpUrl(this.c.url);
    this.lastError = undefined;
    const conn = this.container.connect({
      host: a.host,
      port: a.port,
      transport: a.tls ? 'tls' : 'tcp',
      hostname: a.vhost ? `vhost:${a.vhost}` : a.host,
      ...(a.tls ? { servername: a.host } : {}),
      username: this.c.username,
      password: this.c.password,
      reconnect: false,
      idle_time_out: 60_000,
    } as never);
    this.conn = conn;
    conn.on('connection_open', () => {
      if (this.attempt > 0)
        this.log.info({ broker: this.where, attempts: this.attempt }, 'AMQP connection re-established');
      else this.log.info({ broker: this.where, queues: this.c.queues, consumers: this.c.consumers }, 'AMQP connected');
      this.attempt = 0;
      for (const s of this.slots) this.openReceiver(conn, s);
    });
    conn.on('connection_error', (ctx: EventContext) => {
      this.lastError = describeAmqpError(
        (ctx as { error?: unknown }).error ?? ctx.connection.error,
        this.c.username,
        this.c.credentials,
      );
    });
    conn.on('connection_close', () => {
      /* followed by disconnected */
    });
    conn.on('error', (ctx: EventContext) => {
      this.lastError = errText((ctx as { error?: unknown }).error ?? ctx.connection.error);
    });
    conn.on('disconnected', (ctx: EventContext) => {
      if (this.conn !== conn) return;
      for (const s of this.slots) {
        s.receiver = undefined;
        if (s.paused) {
          clearTimeout(s.paused);
          s.paused = undefined;
        }
      }
      if (this.closing) return;
      const reason = this.lastError ?? errText((ctx as { error?: unknown }).error) ?? 'connection closed';
      this.attempt++;
      const delay = nextDelay(this.c.reconnect, this.attempt);
      this.log.warn(
        { broker: this.where, attempt: this.attempt, retryInMs: delay, reason, inFlight: this.inFlight },
        `AMQP connection to ${this.where} failed: ${reason}; retrying in ${delay} ms`,
      );
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.connect();
      }, delay);
      this.timer.unref?.();
    });
  }

  private openReceiver(conn: Connection, s: Slot): void {
    const receiver = conn.open_receiver({
      source: { address: s.queue },
      autoaccept: false,
      credit_window: 0,
      name: `${this.route.id}-${s.queue}-${s.index}-${randomUUID().slice(0, 8)}`,
    });
    s.receiver = receiver;
    receiver.on('receiver_open', () => {
      s.releases = 0;
      this.topUp(s);
    });
    receiver.on('receiver_error', (ctx: EventContext) => {
      const reason = describeAmqpError(ctx.receiver?.error, this.c.username, this.c.credentials);
      this.lastError = `queue '${s.queue}': ${reason}`;
      this.log.error({ queue: s.queue, reason }, `AMQP receiver on queue '${s.queue}' failed: ${reason}`);
      // start over through the reconnect loop (backoff, readiness false, a warning per attempt)
      if (conn.is_open()) conn.close();
    });
    receiver.on('receiver_close', () => {
      if (s.receiver === receiver) s.receiver = undefined;
    });
    receiver.on('message', (ctx: EventContext) => {
      void this.onMessage(s, receiver, ctx);
    });
  }

  /**
   * Gives the link credit up to `prefetch` messages in flight, unless paused, closing or a breaker
   * of the route is open; while one is half-open, the one probe message.
   */
  private topUp(s: Slot): void {
    const r = s.receiver;
    if (!r || this.closing || !r.is_open()) return;
    const { gate } = this.gate();
    if (gate === 'shut') return;
    if (gate === 'probe') return this.probe();
    if (s.paused) return;
    const want = this.c.prefetch - s.inFlight - creditOf(r);
    if (want > 0) r.add_credit(want);
  }

  /**
   * One credit on one link, when no message is in flight or asked for: the probe. A message that
   * ends without deciding the breaker (rejected before the call, refused while another route's
   * probe is under way) makes room for the next one.
   */
  private probe(): void {
    if (this.inFlight > 0) return;
    let free: Receiver | undefined;
    for (const s of this.slots) {
      const r = s.receiver;
      if (!r || !r.is_open()) continue;
      if (creditOf(r) > 0) return;
      if (!free && !s.paused) free = r;
    }
    free?.add_credit(1);
  }

  private async onMessage(s: Slot, receiver: Receiver, ctx: EventContext): Promise<void> {
    const message = ctx.message as Message;
    const delivery = ctx.delivery!;
    const { metrics } = this.host.services;
    const messageId = messageIdString(message.message_id);
    const stableMessageId = messageId ?? contentId(message);
    const correlationId = messageIdString(message.correlation_id) ?? messageId ?? newCorrelationId();
    const redelivered = message.first_acquirer === false || (message.delivery_count ?? 0) > 0;
    const log = this.log.child({ correlationId, messageId: stableMessageId, queue: s.queue });
    s.inFlight++;
    this.inFlight++;
    metrics.inFlight.inc({ route: this.route.id });
    let outcome: Outcome | undefined;
    let reason: string | undefined;
    const route = this.route;
    // the raw input, as a failed exchange keeps it
    const b = bodyOf(message);
    const text = b.bytes ? b.bytes.toString('utf8') : b.text;
    /** set when the message failed for good: recorded before it is rejected */
    let failure: PlatformError | undefined;
    /** a poison message's failed deliveries, this one included (counted by countFailure) */
    let poisonCount: number | undefined;
    let ex: ReturnType<typeof createExchange> | undefined;
    try {
      if (!messageId) log.warn('message has no message_id: the event id is derived from the body hash');
      if (!this.c.transacted) settle(delivery, { outcome: 'accepted' });
      let body: unknown;
      if (this.c.content === 'text') body = text ?? b.value;
      else if (text !== undefined) {
        try {
          body = JSON.parse(text);
        } catch (e) {
          reason = `body is not JSON: ${(e as Error).message}`;
          outcome = { outcome: 'rejected', condition: 'amqp:decode-error', description: reason };
          failure = new PlatformError({ kind: 'validation', code: CODE.validation, detail: reason });
        }
      } else body = b.value;
      if (!outcome) {
        ex = createExchange({
          routeId: route.id,
          correlationId,
          body,
          headers: amqpHeaders(message),
          message: {
            messageId: stableMessageId,
            queue: s.queue,
            redelivered,
            deliveryCount: message.delivery_count ?? 0,
            subject: message.subject,
            contentType: message.content_type,
            correlationId: messageIdString(message.correlation_id),
            creationTime:
              message.creation_time instanceof Date ? message.creation_time.toISOString() : message.creation_time,
          },
          log,
          signal: this.abort.signal,
        });
        const started = performance.now();
        const out = await runRoute(route, ex, metrics);
        metrics.latency.observe({ route: route.id }, (performance.now() - started) / 1000);
        if (!out.error) outcome = { outcome: 'accepted' };
        else if (!this.c.transacted) {
          // accepted on arrival: the failure is recorded, or the message is lost from sight
          reason = reasonOf(out.error);
          outcome = { outcome: 'rejected', condition: conditionOf(out.error), description: reason };
          failure = out.error;
        } else if (out.error.transient) {
          reason = reasonOf(out.error);
          const delivered = this.countFailure(stableMessageId, out.error);
          if (delivered !== undefined && this.c.maxDeliveries > 0 && delivered >= this.c.maxDeliveries) {
            reason = `poison message: failed on each of ${delivered} deliveries (max-deliveries ${this.c.maxDeliveries}); last: ${reason}`;
            outcome = { outcome: 'rejected', condition: 'amqp:internal-error', description: reason };
            failure = out.error;
            poisonCount = delivered;
          } else outcome = { outcome: 'released' };
        } else {
          reason = reasonOf(out.error);
          outcome = { outcome: 'rejected', condition: conditionOf(out.error), description: reason };
          failure = out.error;
        }
      }
      if (failure) {
        const seen = this.failures.get(stableMessageId);
        this.failures.delete(stableMessageId);
        try {
          await this.recorder.record(route, {
            source: 'amqp',
            error: failure,
            body: text ?? (b.value === undefined ? undefined : JSON.stringify(b.value)),
            headers: amqpHeaders(message),
            context: {
              messageId: stableMessageId,
              queue: s.queue,
              subject: message.subject,
              contentType: message.content_type,
              correlationId: messageIdString(message.correlation_id),
              content: this.c.content,
            },
            // the failed deliveries counted before, and this one
            attempts: poisonCount ?? (seen?.count ?? 0) + 1,
            firstAt: seen?.firstAt,
            correlationId,
            ex,
          });
        } catch (e) {
          if (this.c.transacted) {
            // the store is down: the broker keeps the message (released) until it can be recorded
            log.error(
              { err: errText(e), reason },
              `the failed message could not be recorded (${errText(e)}); released instead of rejected`,
            );
            if (seen) this.failures.set(stableMessageId, seen);
            outcome = { outcome: 'released' };
            reason = `not recorded: ${errText(e)}; ${reason}`;
          } else log.error({ err: errText(e), reason }, `the failed message could not be recorded: ${errText(e)}`);
        }
      } else if (outcome.outcome === 'accepted') this.failures.delete(stableMessageId);
    } catch (e) {
      // runRoute never throws; this is a bug in the source itself: let the broker redeliver
      reason = `internal error: ${errText(e)}`;
      log.error({ err: e }, 'AMQP message handling failed');
      outcome = { outcome: 'released' };
    } finally {
      s.inFlight--;
      this.inFlight--;
      metrics.inFlight.dec({ route: this.route.id });
    }
    this.finish(s, receiver, delivery, outcome!, reason, log, redelivered);
  }

  /**
   * Counts a delivery that failed transiently; returns how many deliveries of the message failed
   * so far, or undefined when this failure does not count (the event hub is down). A broker's own
   * delivery_count is not taken: where it is kept, it counts the releases of an outage too.
   */
  private countFailure(id: string, error: PlatformError): number | undefined {
    if (eventHubOutage(error)) return undefined;
    const seen = this.failures.get(id);
    this.failures.delete(id);
    const entry = {
      count: (seen?.count ?? 0) + 1,
      firstAt: seen?.firstAt ?? new Date(),
    };
    this.failures.set(id, entry);
    if (this.failures.size > COUNTED_MESSAGES) this.failures.delete(this.failures.keys().next().value!);
    return entry.count;
  }

  private finish(
    s: Slot,
    receiver: Receiver,
    delivery: NonNullable<EventContext['delivery']>,
    o: Outcome,
    reason: string | undefined,
    log: Logger,
    redelivered: boolean,
  ): void {
    const { metrics } = this.host.services;
    if (this.c.transacted) {
      const done = settle(delivery, o);
      metrics.messages.inc({ route: this.route.id, queue: s.queue, outcome: done ? o.outcome : 'unsettled' });
      if (!done)
        log.warn(
          { outcome: o.outcome },
          'the AMQP link closed before the message was settled: the broker redelivers it',
        );
      else if (o.outcome === 'rejected') log.error({ reason, redelivered }, `message rejected: ${reason}`);
      else if (o.outcome === 'released')
        log.warn({ reason, redelivered }, `message released for redelivery: ${reason}`);
    } else {
      metrics.messages.inc({
        route: this.route.id,
        queue: s.queue,
        outcome: o.outcome === 'accepted' ? 'accepted' : 'lost',
      });
      if (o.outcome !== 'accepted')
        log.error({ reason }, `message dropped (transacted=false, accepted on arrival): ${reason}`);
    }
    if (o.outcome === 'released' && this.c.transacted) {
      s.releases++;
      const delay = nextDelay(this.c.releaseBackoff, s.releases);
      if (!s.paused && s.receiver === receiver && !this.closing) {
        s.paused = setTimeout(() => {
          s.paused = undefined;
          this.topUp(s);
        }, delay);
        s.paused.unref?.();
      }
    } else {
      s.releases = 0;
      if (s.receiver === receiver) this.topUp(s);
    }
    if (this.inFlight === 0) this.drained?.();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.slots)
      if (s.paused) {
        clearTimeout(s.paused);
        s.paused = undefined;
      }
    // messages in flight finish (and are settled) first; past the timeout they are abandoned
    // unsettled, which the broker redelivers
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.c.drainTimeout);
        t.unref?.();
        this.drained = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    this.abort.abort();
    const conn = this.conn;
    if (conn && conn.is_open()) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 2000);
        t.unref?.();
        conn.once('connection_close', () => {
          clearTimeout(t);
          resolve();
        });
        conn.once('disconnected', () => {
          clearTimeout(t);
          resolve();
        });
        conn.close();
      });
    }
    (conn as unknown as { socket?: { destroy(): void } } | undefined)?.socket?.destroy?.();
  }
}

function errText(e: unknown): string | undefined {
  if (e === undefined || e === null) return undefined;
  if (e instanceof Error) return e.message;
  if (typeof e === 'object') {
    const o = e as { condition?: string; description?: string; message?: string };
    if (o.condition || o.description) return [o.condition, o.description].filter(Boolean).join(': ');
    if (o.message) return o.message;
  }
  return String(e);
}

/**
 * A broker error in words, naming authentication failures as such (never the password) and where
 * the credentials are set (`credentials`: what credentialSources found).
 */
function describeAmqpError(
  e: unknown,
  username?: string,
  credentials = 'from.amqp.username / from.amqp.password',
): string {
  const t = errText(e) ?? 'unknown error';
  if (/authenticat|sasl|unauthorized-access|access.refused|not.allowed.*login/i.test(t)) {
    return `authentication failed for user '${username ?? '(anonymous)'}' (check ${credentials}): ${t}`;
  }
  return t;
}

function reasonOf(e: PlatformError): string {
  const fields = e.errors?.length ? ` (${e.errors.map((f) => `${f.field}: ${f.message}`).join('; ')})` : '';
  return `${e.kind}: ${e.detail ?? e.title}${fields}`;
}

/** The failure is the event hub's (down, unreachable, timing out), not the message's. */
function eventHubOutage(e: PlatformError): boolean {
  for (let c: unknown = e, depth = 0; c && depth < 5; depth++) {
    if (c instanceof PlatformError && c.kind === 'eventhub') return true;
    c = (c as { cause?: unknown }).cause;
  }
  return false;
}

/** Application properties (lower-case) and content-type, as the exchange gets them. */
function amqpHeaders(message: Message): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(message.application_properties ?? {}))
    headers[k.toLowerCase()] = v === undefined || v === null ? undefined : String(v);
  if (message.content_type) headers['content-type'] = String(message.content_type);
  return headers;
}

function conditionOf(e: PlatformError): string {
  if (e.kind === 'validation') return 'amqp:precondition-failed';
  if (e.kind === 'eventhub') return 'amqp:not-allowed';
  return 'amqp:internal-error';
}
