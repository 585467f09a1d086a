// Live metrics of each route for the console, read from the engine's own metrics (the numbers
// /metrics exposes): exchanges per second and errors over the last sampling window, p50 and p99
// of the duration histogram (its buckets over the window, else since start), retries, in flight.

import type { Metrics } from '../observability/metrics.ts';

export interface RouteMetricsView {
  requests: number;
  errors: number;
  retries: number;
  inFlight: number;
  /** exchanges per second over the last window */
  rate: number;
  /** ms, estimated from the histogram buckets */
  p50?: number;
  p99?: number;
}

interface Sample {
  at: number;
  byRoute: Map<string, { requests: number; errors: number; buckets: number[] }>;
}

type Values = { labels: Record<string, string | number>; value: number; metricName?: string }[];

export class RouteMetricsSampler {
  private last?: Sample;
  private view = new Map<string, RouteMetricsView>();

  constructor(private metrics: Metrics) {}

  /** Takes a sample and returns each route's numbers (window: since the previous sample). */
  async sample(): Promise<Record<string, RouteMetricsView>> {
    const m = this.metrics;
    const [req, err, lat, ret, fl] = await Promise.all([
      m.requests.get(),
      m.errors.get(),
      m.latency.get(),
      m.retries.get(),
      m.inFlight.get(),
    ]);
    const now: Sample = { at: Date.now(), byRoute: new Map() };
    const entry = (route: string) => {
      let e = now.byRoute.get(route);
      if (!e) {
        e = { requests: 0, errors: 0, buckets: new Array(m.latency.buckets.length + 1).fill(0) };
        now.byRoute.set(route, e);
      }
      return e;
    };
    for (const v of req.values as Values) entry(String(v.labels.route)).requests += v.value;
    for (const v of err.values as Values) entry(String(v.labels.route)).errors += v.value;
    // cumulative bucket counts per route, `+Inf` last
    for (const v of lat.values as Values) {
      if (v.metricName?.endsWith('_bucket') !== true) continue;
      const i = v.labels.le === '+Inf' ? m.latency.buckets.length : m.latency.buckets.indexOf(Number(v.labels.le));
      if (i >= 0) entry(String(v.labels.route)).buckets[i] = v.value;
    }
    const retries = sumBy(ret.values as Values);
    const inFlight = sumBy(fl.values as Values);
    const prev = this.last;
    const seconds = prev ? Math.max((now.at - prev.at) / 1000, 0.001) : 0;
    for (const [route, e] of now.byRoute) {
      const p = prev?.byRoute.get(route);
      const window = p ? e.buckets.map((c, i) => c - p.buckets[i]!) : e.buckets;
      const use = window[window.length - 1]! > 0 ? window : e.buckets;
      this.view.set(route, {
        requests: e.requests,
        errors: e.errors,
        retries: retries.get(route) ?? 0,
        inFlight: inFlight.get(route) ?? 0,
        rate: p && seconds ? round((e.requests - p.requests) / seconds) : 0,
        p50: quantile(use, m.latency.buckets, 0.5),
        p99: quantile(use, m.latency.buckets, 0.99),
      });
    }
    this.last = now;
    return Object.fromEntries(this.view);
  }
}

function sumBy(values: Values): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of values) out.set(String(v.labels.route), (out.get(String(v.labels.route)) ?? 0) + v.value);
  return out;
}

/** The q-quantile in ms from cumulative bucket counts (linear within the bucket, as Prometheus does). */
function quantile(cumulative: number[], bounds: readonly number[], q: number): number | undefined {
  const total = cumulative[cumulative.length - 1]!;
  if (!total) return undefined;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if (cumulative[i]! >= rank) {
      const lo = i === 0 ? 0 : bounds[i - 1]!;
      const below = i === 0 ? 0 : cumulative[i - 1]!;
      const inBucket = cumulative[i]! - below;
      const x = inBucket > 0 ? lo + (bounds[i]! - lo) * ((rank - below) / inBucket) : bounds[i]!;
      return round(x * 1000);
    }
  }
  return round(bounds[bounds.length - 1]! * 1000);
}

const round = (x: number) => Math.round(x * 100) / 100;
