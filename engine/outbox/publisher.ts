// The outbox publisher of one engine: drains the outbox oldest first to the event hub. On
// PostgreSQL each batch is claimed with FOR UPDATE SKIP LOCKED inside one transaction, so replicas
// draining together take different rows, and a replica killed mid-batch rolls back: another one
// publishes its rows again, with the same CloudEvent ids. Per order key only the oldest row goes,
// so events of one key reach the hub in order of arrival. A row the hub accepts is deleted; one it
// refuses for good (400, 422) becomes a failed exchange and is deleted (its dedupe key freed for a
// replay); any other failure leaves the row and the publisher backs off, exponentially, capped.

import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { PlatformError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { httpCall, DEFAULT_TIMEOUTS, type HttpClients, type Timeouts } from '../outbound/http-client.ts';
import { retryPolicy, type RetrySettings } from '../outbound/retry.ts';
import type { ClientGuard } from '../outbound/client-guard.ts';
import { FastCounter, FastGauge } from '../observability/metric-types.ts';
import { maskText } from '../observability/mask.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { DurableStore, SqlClient } from '../store/durable.ts';
import { claimEntries, countEntries, deleteEntries, noteAttempt, type PendingEntry } from './outbox-sql.ts';

/**
 * How one route's events go to the hub: its event hub client's timeouts and retry settings, and the
 * client's guard (circuit breaker, bulkhead, retry budget), shared with the route's direct publications.
 */
export interface RouteTarget {
  timeouts: Timeouts;
  retry: RetrySettings;
  guard?: ClientGuard;
}

export interface PublisherOptions {
  /** how often rows other replicas inserted are looked for, ms */
  pollMs?: number;
  /** most rows per batch (published concurrently: one per order key) */
  batch?: number;
  /** first and largest wait after a batch that could not publish, ms */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Records an event the hub refused for good as a failed exchange (the engine's failed-exchange
   * recorder: masked, counted, logged); default: the store's recordFailed as is.
   */
  recordRefusal?: (row: PendingEntry, refusal: Refusal) => Promise<void>;
}

/** A permanent refusal of an event by the hub. */
export interface Refusal {
  status?: number;
  /** what the hub answered, masked */
  detail: string;
}

const NO_RETRY: RetrySettings = { enabled: false, maxRetries: 0, delay: 200, multiplier: 2, statuses: [] };

type Outcome = { ok: true } | { ok: false; permanent: boolean; status?: number; detail: string };

export class OutboxPublisher {
  /** the targets of the routes loaded (a reload replaces a route's) */
  readonly routes = new Map<string, RouteTarget>();
  private readonly pollMs: number;
  private readonly batch: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly published: FastCounter<'route'>;
  private readonly failed: FastCounter<'route'>;
  private readonly pending: FastGauge<never>;
  private dispatchers = new Map<number, Dispatcher>();
  private stopped = false;
  private running?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private wakeUp?: () => void;
  private woken = false;
  private backoff = 0;
  private failing = false;
  private readonly abort = new AbortController();
  private readonly recordRefusal: (row: PendingEntry, refusal: Refusal) => Promise<void>;

  constructor(
    private readonly store: DurableStore,
    private readonly http: HttpClients,
    private readonly metrics: Metrics,
    private readonly log: Logger,
    opts: PublisherOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 1000;
    this.batch = opts.batch ?? 50;
    this.backoffMs = opts.backoffMs ?? 500;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    this.recordRefusal = opts.recordRefusal ?? ((row, o) => this.recordInStore(row, o));
    // every call of a batch listens to the one signal that stops them
    setMaxListeners(0, this.abort.signal);
    const r = metrics.registry;
    this.pending = new FastGauge('engine_outbox_pending', 'Events waiting in the outbox (last count)', [], r);
    this.published = new FastCounter(
      'engine_outbox_published_total',
      'Events the outbox publisher delivered to the event hub',
      ['route'],
      r,
    );
    this.failed = new FastCounter(
      'engine_outbox_failed_total',
      'Events the event hub refused for good, moved to failed exchanges',
      ['route'],
      r,
    );
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** A row was inserted: publish now rather than at the next poll (ignored while backing off). */
  wake(): void {
    this.woken = true;
    if (this.backoff === 0) this.wakeUp?.();
  }

  /** Stops after the batch in flight; its calls are aborted, so its rows stay for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.wakeUp?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      let more = false;
      try {
        const r = await this.drainOnce();
        // a batch holds one row per order key: go on while rows keep going, sleep once none is left
        more = r.ok && r.count > 0;
        this.settle(r.ok, r.detail);
      } catch (e) {
        if (this.stopped) break;
        this.settle(false, `outbox: ${(e as Error).message}`);
      }
      if (this.stopped) break;
      if (more || (this.woken && this.backoff === 0)) continue;
      await this.sleep(this.backoff || this.pollMs);
    }
  }

  /** After a batch: one log line when publishing starts failing and one when it recovers. */
  private settle(ok: boolean, detail?: string): void {
    if (ok) {
      if (this.failing) this.log.info('outbox: publishing to the event hub again');
      this.failing = false;
      this.backoff = 0;
      return;
    }
    if (!this.failing)
      this.log.warn({ detail }, 'outbox: the event hub does not accept events; they wait in the outbox');
    this.failing = true;
    this.backoff = Math.min(this.maxBackoffMs, this.backoff ? this.backoff * 2 : this.backoffMs);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(this.timer);
        this.wakeUp = undefined;
        resolve();
      };
      this.wakeUp = done;
      this.timer = setTimeout(done, ms);
    });
  }

  /** One batch: claimed, published (one row per order key, concurrently), settled. */
  async drainOnce(): Promise<{ ok: boolean; count: number; detail?: string }> {
    const run = async (tx: Pick<SqlClient, 'query'>) => {
      const rows = await claimEntries(tx, this.batch, this.store.kind === 'postgres');
      const outcomes = await Promise.all(rows.map((r) => this.publish(r)));
      const done: string[] = [];
      let firstFailure: string | undefined;
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i];
        const o = outcomes[i];
        if (o.ok) {
          done.push(row.seq);
          this.published.inc({ route: row.route });
          // the route's own event counter too, as a direct publication counts it
          this.metrics.events.inc({ route: row.route, type: row.eventType, outcome: 'published' });
        } else if (o.permanent) {
          await this.recordRefusal(row, o);
          this.log.warn(
            { route: row.route, eventId: row.eventId, correlationId: row.correlationId, status: o.status },
            'outbox: the event hub refused an event; kept as a failed exchange',
          );
          done.push(row.seq);
          this.failed.inc({ route: row.route });
          this.metrics.events.inc({ route: row.route, type: row.eventType, outcome: 'failed' });
        } else {
          firstFailure ??= o.detail;
          await noteAttempt(tx, row.seq, o.detail);
        }
      }
      await deleteEntries(tx, done);
      return { ok: firstFailure === undefined, count: rows.length, detail: firstFailure };
    };
    // PGlite is one process and one connection: no lock to take, and a transaction would hold
    // back every webhook's insert for as long as the batch's calls take
    const r = this.store.kind === 'postgres' ? await this.store.sql.transaction(run) : await run(this.store.sql);
    this.pending.labels({} as never).value = await countEntries(this.store.sql);
    return r;
  }

  private dispatcher(connect: number): Dispatcher {
    let d = this.dispatchers.get(connect);
    if (!d) {
      d = this.http.get({ connections: 50, connectTimeout: connect, proxy: false });
      this.dispatchers.set(connect, d);
    }
    return d;
  }

  /** One row to the hub, with its route's retry settings for the attempts of this batch. */
  private async publish(row: PendingEntry): Promise<Outcome> {
    const target: RouteTarget = this.routes.get(row.route) ?? { timeouts: DEFAULT_TIMEOUTS, retry: NO_RETRY };
    const guard = target.guard;
    let attempts = 0;
    const once = async () => {
      // an open breaker, a full bulkhead or a spent retry budget: the row waits, the hub is not called
      if (attempts++ === 0) guard?.call();
      else {
        const refusal = guard?.retryRefusal();
        if (refusal) throw new PlatformError({ kind: 'eventhub', detail: refusal, transient: true, noRetry: refusal });
      }
      let token = 0;
      if (guard) {
        try {
          const g = guard.enter();
          token = typeof g === 'number' ? g : await g;
        } catch (e) {
          const pe = e as PlatformError;
          throw new PlatformError({
            kind: 'eventhub',
            detail: `event hub: ${pe.detail ?? pe.message}`,
            transient: true,
            noRetry: 'refused by the client guard',
            cause: e,
          });
        }
      }
      let status: number;
      try {
        const r = await httpCall({
          method: 'POST',
          url: row.url,
          headers: row.headers,
          body: row.event,
          timeouts: target.timeouts,
          dispatcher: this.dispatcher(target.timeouts.connect),
          signal: this.abort.signal,
        });
        status = r.status;
      } catch (e) {
        const pe = e as PlatformError;
        guard?.leave(token, this.abort.signal.aborted ? undefined : false, pe.detail ?? pe.message);
        throw new PlatformError({
          kind: 'eventhub',
          detail: `event hub: ${pe.detail ?? pe.message}`,
          transient: true,
          cause: e,
        });
      }
      guard?.answered(token, status, 'event hub');
      if (status >= 200 && status < 300) return;
      // as the direct publication: only a refusal of the event itself is permanent
      throw new PlatformError({
        kind: 'eventhub',
        vendorStatus: status,
        detail: `event hub answered ${status}`,
        transient: status !== 400 && status !== 422,
      });
    };
    try {
      const policy = retryPolicy(target.retry, true);
      if (policy) await policy.execute(() => once(), this.abort.signal);
      else await once();
      return { ok: true };
    } catch (e) {
      const pe = e instanceof PlatformError ? e : undefined;
      return {
        ok: false,
        permanent: pe?.transient === false,
        status: pe?.vendorStatus,
        detail: maskText(pe?.detail ?? (e as Error).message),
      };
    }
  }

  /** A refused event: its webhook becomes a failed exchange, as the sources record one. */
  private async recordInStore(row: PendingEntry, o: Refusal): Promise<void> {
    await this.store.recordFailed({
      route: row.route,
      routeVersion: row.routeVersion,
      source: 'http',
      code: CODE.generic,
      cause: o.detail,
      detail: `the event hub refused event ${row.eventId}${o.status ? ` (${o.status})` : ''}`,
      body: row.inputBody,
      headers: row.inputHeaders,
      context: row.inputContext,
      attempts: row.attempts + 1,
      firstAt: row.createdAt,
      lastAt: new Date(),
      traceId: row.traceId,
      correlationId: row.correlationId,
    });
  }
}
