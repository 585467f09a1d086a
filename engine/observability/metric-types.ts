// Counters, gauges and histograms with children bound once per label set. prom-client's own
// `labels()` children hash and validate their labels again on every call (a measurable share of a
// fast route); these keep plain numbers per child and hand prom-client's registry the same
// metric data at scrape time, so exposition, default metrics and content types stay prom-client's.

import type { Registry } from 'prom-client';

type Labels<L extends string> = Record<L, string>;

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** What prom-client's registry reads from a metric (`get`, `reset`, name, help, type). */
abstract class BoundMetric<L extends string, C> {
  protected children = new Map<string, { labels: Labels<L>; child: C }>();
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'gauge' | 'histogram';

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly L[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  protected abstract make(): C;

  /** The child of these labels, made once; keep it to skip even the lookup. */
  labels(labels: Labels<L>): C {
    let key = '';
    for (const n of this.labelNames) key += `${labels[n] ?? ''}\u0000`;
    let e = this.children.get(key);
    if (!e) {
      const copy = {} as Labels<L>;
      for (const n of this.labelNames) copy[n] = String(labels[n] ?? '');
      e = { labels: copy, child: this.make() };
      this.children.set(key, e);
    }
    return e.child;
  }

  protected abstract values(): MetricValue[];

  async get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: string }> {
    return { name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: this.aggregator };
  }

  /** Zeroes every child in place: children bound by routes keep reporting after a reset. */
  reset(): void {
    for (const { child } of this.children.values()) this.zero(child);
  }

  protected abstract zero(child: C): void;
}

export class CounterChild {
  value = 0;
  inc(n = 1): void {
    this.value += n;
  }
}

export class FastCounter<L extends string> extends BoundMetric<L, CounterChild> {
  readonly type = 'counter';
  protected make(): CounterChild {
    return new CounterChild();
  }
  protected zero(c: CounterChild): void {
    c.value = 0;
  }
  inc(labels: Labels<L>, n = 1): void {
    this.labels(labels).inc(n);
  }
  protected values(): MetricValue[] {
    return [...this.children.values()].map((e) => ({ labels: e.labels, value: e.child.value }));
  }
}

export class GaugeChild {
  value = 0;
  inc(): void {
    this.value++;
  }
  dec(): void {
    this.value--;
  }
  set(v: number): void {
    this.value = v;
  }
}

export class FastGauge<L extends string> extends BoundMetric<L, GaugeChild> {
  readonly type = 'gauge';
  protected make(): GaugeChild {
    return new GaugeChild();
  }
  // a gauge is a current state (exchanges in flight), not a count since the last reset
  protected zero(): void {}
  inc(labels: Labels<L>): void {
    this.labels(labels).inc();
  }
  dec(labels: Labels<L>): void {
    this.labels(labels).dec();
  }
  /** Drops every series (a set of labels that is no longer there, e.g. a route a reload removed). */
  clear(): void {
    this.children.clear();
  }
  protected values(): MetricValue[] {
    return [...this.children.values()].map((e) => ({ labels: e.labels, value: e.child.value }));
  }
}

export class HistogramChild {
  /** observations per bucket (not cumulative); the last slot is above every bound */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]) i++;
    this.counts[i]++;
    this.sum += v;
    this.count++;
  }
}

export class FastHistogram<L extends string> extends BoundMetric<L, HistogramChild> {
  readonly type = 'histogram';
  constructor(
    name: string,
    help: string,
    labelNames: readonly L[],
    readonly buckets: readonly number[],
    registry: Registry,
  ) {
    super(name, help, labelNames, registry);
  }

  protected make(): HistogramChild {
    return new HistogramChild(this.buckets);
  }
  protected zero(c: HistogramChild): void {
    c.counts.fill(0);
    c.sum = 0;
    c.count = 0;
  }
  observe(labels: Labels<L>, v: number): void {
    this.labels(labels).observe(v);
  }

  protected values(): MetricValue[] {
    const out: MetricValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, child } of this.children.values()) {
      let acc = 0;
      this.buckets.forEach((le, i) => {
        acc += child.counts[i];
        out.push({ labels: { le, ...labels }, value: acc, metricName: bucket });
      });
      out.push({ labels: { le: '+Inf', ...labels }, value: child.count, metricName: bucket });
      out.push({ labels, value: child.sum, metricName: `${this.name}_sum` });
      out.push({ labels, value: child.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}
