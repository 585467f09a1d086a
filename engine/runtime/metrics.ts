// Prometheus metrics of one engine instance (its own registry, so tests can run several engines).

import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'route' | 'status'>;
  readonly errors: Counter<'route' | 'kind' | 'code'>;
  readonly latency: Histogram<'route'>;
  readonly vendorCalls: Counter<'route' | 'target' | 'status'>;
  readonly vendorLatency: Histogram<'route' | 'target'>;
  readonly retries: Counter<'route' | 'target'>;
  readonly events: Counter<'route' | 'type' | 'outcome'>;
  readonly messages: Counter<'route' | 'queue' | 'outcome'>;
  readonly inFlight: Gauge<'route'>;

  constructor(defaults = true) {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'engine_route_requests_total', help: 'Exchanges handled per route and response status', labelNames: ['route', 'status'], registers });
    this.errors = new Counter({ name: 'engine_route_errors_total', help: 'Exchanges that ended in an error, per route, error kind and platform code', labelNames: ['route', 'kind', 'code'], registers });
    this.latency = new Histogram({ name: 'engine_route_duration_seconds', help: 'Exchange duration per route', labelNames: ['route'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers });
    this.vendorCalls = new Counter({ name: 'engine_vendor_calls_total', help: 'Outbound vendor calls by target and HTTP status (0 = no answer)', labelNames: ['route', 'target', 'status'], registers });
    this.vendorLatency = new Histogram({ name: 'engine_vendor_call_duration_seconds', help: 'Outbound vendor call duration', labelNames: ['route', 'target'], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers });
    this.retries = new Counter({ name: 'engine_vendor_retries_total', help: 'Retries of outbound calls', labelNames: ['route', 'target'], registers });
    this.events = new Counter({ name: 'engine_events_published_total', help: 'CloudEvents sent to the event hub by outcome', labelNames: ['route', 'type', 'outcome'], registers });
    this.messages = new Counter({ name: 'engine_messages_total', help: 'Inbound messages by outcome (accepted, released, rejected)', labelNames: ['route', 'queue', 'outcome'], registers });
    this.inFlight = new Gauge({ name: 'engine_exchanges_in_flight', help: 'Exchanges being processed', labelNames: ['route'], registers });
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }

  private routeCache = new Map<string, RouteMetrics>();
  private targetCache = new Map<string, TargetMetrics>();

  /** Label children bound once per route: prom-client hashes labels on every call otherwise. */
  route(route: string): RouteMetrics {
    let m = this.routeCache.get(route);
    if (!m) {
      const byStatus = new Map<number, ReturnType<Counter['labels']>>();
      const latency = this.latency.labels({ route });
      const inFlight = this.inFlight.labels({ route });
      m = {
        request: (status) => {
          let c = byStatus.get(status);
          if (!c) { c = this.requests.labels({ route, status: String(status) }); byStatus.set(status, c); }
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

  target(route: string, target: string): TargetMetrics {
    const key = `${route}\u0000${target}`;
    let m = this.targetCache.get(key);
    if (!m) {
      const byStatus = new Map<number, ReturnType<Counter['labels']>>();
      const latency = this.vendorLatency.labels({ route, target });
      const retries = this.retries.labels({ route, target });
      m = {
        call: (status, seconds) => {
          let c = byStatus.get(status);
          if (!c) { c = this.vendorCalls.labels({ route, target, status: String(status) }); byStatus.set(status, c); }
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
