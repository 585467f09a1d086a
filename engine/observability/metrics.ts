// Prometheus metrics of one engine instance (its own registry, so tests can run several engines).

import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { FastCounter, FastGauge, FastHistogram, type CounterChild } from './metric-types.ts';
import { buildInfo } from './build-info.ts';

export class Metrics {
  readonly registry = new Registry();
  readonly requests: FastCounter<'route' | 'status'>;
  readonly errors: FastCounter<'route' | 'kind' | 'code'>;
  readonly latency: FastHistogram<'route'>;
  readonly vendorCalls: FastCounter<'route' | 'target' | 'status'>;
  readonly vendorLatency: FastHistogram<'route' | 'target'>;
  readonly retries: FastCounter<'route' | 'target'>;
  readonly events: FastCounter<'route' | 'type' | 'outcome'>;
  readonly messages: FastCounter<'route' | 'queue' | 'outcome'>;
  readonly inFlight: FastGauge<'route'>;
  readonly failedExchanges: FastCounter<'route' | 'code'>;
  readonly failedOpen: Gauge;
  /** per client profile (outbound/client-guard.ts): 0 closed, 1 open, 2 half-open */
  readonly breakerState: FastGauge<'client'>;
  readonly breakerTransitions: FastCounter<'client' | 'to'>;
  readonly clientRefused: FastCounter<'client' | 'by'>;
  readonly clientRetries: FastCounter<'client' | 'outcome'>;
  /** 1 per loaded route with its connector: dashboards join on it to sum per connector */
  readonly routeInfo: FastGauge<'route' | 'connector'>;
  /**
   * The open failed exchanges as the durable store counts them, read at each scrape; undefined
   * while this engine has not opened its store (a scrape never opens it). Set by store/failed-recorder.ts.
   */
  countOpenFailed?: () => Promise<number | undefined>;

  constructor(defaults = true) {
    const r = this.registry;
    this.requests = new FastCounter(
      'engine_route_requests_total',
      'Exchanges handled per route and response status',
      ['route', 'status'],
      r,
    );
    this.errors = new FastCounter(
      'engine_route_errors_total',
      'Exchanges that ended in an error, per route, error kind and platform code',
      ['route', 'kind', 'code'],
      r,
    );
    this.latency = new FastHistogram(
      'engine_route_duration_seconds',
      'Exchange duration per route',
      ['route'],
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      r,
    );
    this.vendorCalls = new FastCounter(
      'engine_vendor_calls_total',
      'Outbound vendor calls by target and HTTP status (0 = no answer)',
      ['route', 'target', 'status'],
      r,
    );
    this.vendorLatency = new FastHistogram(
      'engine_vendor_call_duration_seconds',
      'Outbound vendor call duration',
      ['route', 'target'],
      [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      r,
    );
    this.retries = new FastCounter('engine_vendor_retries_total', 'Retries of outbound calls', ['route', 'target'], r);
    this.events = new FastCounter(
      'engine_events_published_total',
      'CloudEvents sent to the event hub by outcome',
      ['route', 'type', 'outcome'],
      r,
    );
    this.messages = new FastCounter(
      'engine_messages_total',
      'Inbound messages by outcome (accepted, released, rejected)',
      ['route', 'queue', 'outcome'],
      r,
    );
    this.inFlight = new FastGauge('engine_exchanges_in_flight', 'Exchanges being processed', ['route'], r);
    this.failedExchanges = new FastCounter(
      'engine_failed_exchanges_total',
      'Inputs that failed for good and were recorded as failed exchanges, per route and platform code',
      ['route', 'code'],
      r,
    );
    this.breakerState = new FastGauge(
      'engine_client_breaker_state',
      'Circuit breaker state per client profile: 0 closed, 1 open, 2 half-open',
      ['client'],
      r,
    );
    this.breakerTransitions = new FastCounter(
      'engine_client_breaker_transitions_total',
      'Circuit breaker transitions per client profile and the state entered',
      ['client', 'to'],
      r,
    );
    this.clientRefused = new FastCounter(
      'engine_client_calls_refused_total',
      'Calls refused without a vendor call, per client profile and by what (circuit-breaker, bulkhead)',
      ['client', 'by'],
      r,
    );
    this.clientRetries = new FastCounter(
      'engine_client_retries_total',
      'Retries per client profile: spent, or refused by its retry budget',
      ['client', 'outcome'],
      r,
    );
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    this.failedOpen = new Gauge({
      name: 'engine_failed_exchanges_open',
      help: 'Failed exchanges waiting for an operator (open records of the durable store)',
      registers: [r],
      // one count query per scrape, never per request; the recorder also sets it after each record
      async collect() {
        const n = await self.countOpenFailed?.().catch(() => undefined);
        if (n !== undefined) this.set(n);
      },
    });
    this.routeInfo = new FastGauge(
      'engine_route_info',
      'The loaded routes and their connector (always 1): join on route to sum by connector',
      ['route', 'connector'],
      r,
    );
    // which build answers: a dashboard shows it, an alert compares replicas (observability/build-info.ts)
    new Gauge({
      name: 'engine_build_info',
      help: 'The running build: package version, source revision and Node.js version (always 1)',
      labelNames: ['version', 'revision', 'node'],
      registers: [r],
    }).set(buildInfo(), 1);
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }

  private routeCache = new Map<string, RouteMetrics>();
  private targetCache = new Map<string, TargetMetrics>();

  /** The metrics of one route, bound once: a request costs a few additions. */
  route(route: string): RouteMetrics {
    let m = this.routeCache.get(route);
    if (!m) {
      const byStatus = new Map<number, CounterChild>();
      const latency = this.latency.labels({ route });
      const inFlight = this.inFlight.labels({ route });
      m = {
        request: (status) => {
          let c = byStatus.get(status);
          if (!c) {
            c = this.requests.labels({ route, status: String(status) });
            byStatus.set(status, c);
          }
          c.inc();
        },
        latency: (seconds) => latency.observe(seconds),
        enter: () => inFlight.inc(),
        leave: () => inFlight.dec(),
      };
      this.routeCache.set(route, m);
    }
    return m;
  }

  /** The metrics of one vendor target of a route, bound once. */
  target(route: string, target: string): TargetMetrics {
    const key = `${route}\u0000${target}`;
    let m = this.targetCache.get(key);
    if (!m) {
      const byStatus = new Map<number, CounterChild>();
      const latency = this.vendorLatency.labels({ route, target });
      const retries = this.retries.labels({ route, target });
      m = {
        call: (status, seconds) => {
          let c = byStatus.get(status);
          if (!c) {
            c = this.vendorCalls.labels({ route, target, status: String(status) });
            byStatus.set(status, c);
          }
          c.inc();
          if (seconds !== undefined) latency.observe(seconds);
        },
        retry: () => retries.inc(),
      };
      this.targetCache.set(key, m);
    }
    return m;
  }
}

export interface RouteMetrics {
  request(status: number): void;
  latency(seconds: number): void;
  enter(): void;
  leave(): void;
}

export interface TargetMetrics {
  /** one vendor call; status 0 when there was no answer */
  call(status: number, seconds?: number): void;
  retry(): void;
}

/** Says which routes are loaded, with their connector (engine_route_info), at start and after a reload. */
export function setRouteInfo(m: Metrics, routes: { id: string; connector?: string }[]): void {
  m.routeInfo.clear();
  for (const r of routes) m.routeInfo.labels({ route: r.id, connector: r.connector ?? '' }).set(1);
}
