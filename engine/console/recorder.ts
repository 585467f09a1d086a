// The console's exchange recorder: an in-process consumer of the tracing layer's spans
// (pipeline/tracing.ts). It groups the spans of one exchange (the exchange span, its step spans,
// vendor call and publish spans, and exchanges it called in-process) into one record, and keeps
// the last N finished records in a ring. What the console shows of an exchange is exactly what
// its spans carry: one model of what happened, whether or not an exporter also ships them.

import { SpanKind, SpanStatusCode, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

type Value = string | number | boolean;

export interface SpanRecord {
  id: string;
  parentId?: string;
  name: string;
  /** what the span stands for, from its kind and attributes */
  role: 'exchange' | 'step' | 'call' | 'publish' | 'span';
  /** ms since the exchange started, to a few microseconds (`perfStart`) */
  start: number;
  durationMs: number;
  failed: boolean;
  attributes: Record<string, Value>;
  events: { name: string; at: number; attributes: Record<string, Value> }[];
}

export interface ExchangeSummary {
  id: string;
  traceId: string;
  correlationId: string;
  route: string;
  connector?: string;
  source: string;
  name: string;
  /** epoch ms */
  startedAt: number;
  durationMs?: number;
  outcome: 'running' | 'ok' | 'error';
  status?: number;
  errorKind?: string;
  errorCode?: string;
  calls: number;
  retries: number;
  events: number;
  /** who made it when not a client (ExchangeOrigin: `demo`): its route's, or that of the trace it continues */
  origin?: string;
}

export interface ExchangeRecord extends ExchangeSummary {
  spans: SpanRecord[];
}

/** A kept exchange: its summary, and its spans as the SDK ended them (converted when asked for). */
interface Kept {
  summary: ExchangeSummary;
  raw: ReadableSpan[];
  order: string[];
  t0: number;
  /** span id -> performance.now() when it started */
  perf: Map<string, number>;
  spans?: SpanRecord[];
}

export interface ExchangeQuery {
  correlationId?: string;
  route?: string;
  /** 'ok', 'error', 'running', or an HTTP status */
  status?: string;
  limit?: number;
}

interface Pending {
  record: ExchangeSummary;
  rootId: string;
  t0: number;
  spanIds: string[];
  raw: ReadableSpan[];
  perf: Map<string, number>;
}

const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
/** pending exchanges kept at most (spans that never end must not grow the map for ever) */
const MAX_PENDING = 5000;
/** traces remembered with the origin of the exchange that started them */
const MAX_TRACE_ORIGINS = 1000;

export class ExchangeRecorder implements SpanProcessor {
  private ring: Kept[] = [];
  private next = 0;
  private pending = new Map<string, Pending>();
  /** span id -> the pending exchange it belongs to */
  private owner = new Map<string, Pending>();
  private listeners = new Set<(e: ExchangeSummary) => void>();
  /** route id -> the origin of its exchanges (ExchangeOrigin), set by the console */
  origins = new Map<string, string>();
  /** trace id -> origin: an exchange continuing a marked trace (a status message of a demo payment) is marked too */
  private traceOrigins = new Map<string, string>();

  constructor(readonly capacity: number) {}

  onStart(span: Span, _ctx: Context): void {
    const id = span.spanContext().spanId;
    const parent = span.parentSpanContext?.spanId;
    const p = parent ? this.owner.get(parent) : undefined;
    if (p) {
      this.owner.set(id, p);
      p.spanIds.push(id);
      p.perf.set(id, performance.now());
      return;
    }
    const a = span.attributes;
    if (typeof a['engine.route.id'] !== 'string') return; // a span outside any exchange
    if (this.pending.size >= MAX_PENDING) this.drop(this.pending.keys().next().value!);
    const t0 = ms(span.startTime);
    const record: ExchangeSummary = {
      id,
      traceId: span.spanContext().traceId,
      correlationId: '',
      route: a['engine.route.id'],
      connector: typeof a['engine.connector'] === 'string' ? a['engine.connector'] : undefined,
      source: String(a['engine.source.kind'] ?? ''),
      name: span.name,
      startedAt: Date.now(),
      outcome: 'running',
      calls: 0,
      retries: 0,
      events: 0,
    };
    const origin = this.origins.get(record.route) ?? this.traceOrigins.get(record.traceId);
    if (origin) {
      record.origin = origin;
      if (this.traceOrigins.size >= MAX_TRACE_ORIGINS) this.traceOrigins.delete(this.traceOrigins.keys().next().value!);
      this.traceOrigins.set(record.traceId, origin);
    }
    const pend: Pending = { record, rootId: id, t0, spanIds: [id], raw: [], perf: new Map([[id, performance.now()]]) };
    this.pending.set(id, pend);
    this.owner.set(id, pend);
    this.emit(record);
  }

  onEnd(span: ReadableSpan): void {
    const id = span.spanContext().spanId;
    const p = this.owner.get(id);
    if (!p) return;
    // only what the summary needs now: the spans are converted when someone opens the exchange
    p.raw.push(span);
    const rec = p.record;
    if (span.kind === SpanKind.CLIENT) {
      rec.calls++;
      if (Number(span.attributes['http.request.resend_count'] ?? 0) > 0) rec.retries++;
    }
    if (span.kind === SpanKind.PRODUCER) rec.events++;
    if (id !== p.rootId) return;
    const a = span.attributes;
    rec.correlationId = String(a['engine.correlation_id'] ?? '');
    rec.durationMs = round(ms(span.duration));
    const status = a['http.response.status_code'];
    if (typeof status === 'number') rec.status = status;
    if (a['error.type'] !== undefined) {
      rec.outcome = 'error';
      rec.errorKind = String(a['error.type']);
      if (a['engine.error.code'] !== undefined) rec.errorCode = String(a['engine.error.code']);
    } else {
      rec.outcome = 'ok';
    }
    this.drop(id);
    const kept: Kept = { summary: rec, raw: p.raw, order: p.spanIds, t0: p.t0, perf: p.perf };
    if (this.ring.length < this.capacity) this.ring.push(kept);
    else this.ring[this.next] = kept;
    this.next = (this.next + 1) % this.capacity;
    this.emit(rec);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  /** Finished exchanges, newest first, filtered. */
  list(q: ExchangeQuery = {}): ExchangeSummary[] {
    const out: ExchangeSummary[] = [];
    const limit = q.limit ?? this.capacity;
    for (let i = 1; i <= this.ring.length && out.length < limit; i++) {
      const r = this.ring[(this.next - i + this.ring.length * 2) % this.ring.length]!.summary;
      if (q.correlationId && r.correlationId !== q.correlationId) continue;
      if (q.route && r.route !== q.route) continue;
      if (q.status && !(r.outcome === q.status || String(r.status) === q.status)) continue;
      out.push({ ...r });
    }
    return out;
  }

  /** One exchange by its id (the exchange span's id) or its correlation id, the newest first. */
  get(idOrCorrelationId: string): ExchangeRecord | undefined {
    for (let i = 1; i <= this.ring.length; i++) {
      const k = this.ring[(this.next - i + this.ring.length * 2) % this.ring.length]!;
      if (k.summary.id !== idOrCorrelationId && k.summary.correlationId !== idOrCorrelationId) continue;
      k.spans ??= treeOrder(
        k.raw.map((s) => toSpanRecord(s, k.t0, perfStart(k, s))),
        k.order,
      );
      return { ...k.summary, spans: k.spans };
    }
    return undefined;
  }

  /** Calls `fn` with each exchange as it starts and as it ends; returns the unsubscribe. */
  subscribe(fn: (e: ExchangeSummary) => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }

  private drop(rootId: string): void {
    const p = this.pending.get(rootId);
    if (!p) return;
    this.pending.delete(rootId);
    for (const id of p.spanIds) this.owner.delete(id);
  }

  private emit(r: ExchangeSummary): void {
    if (this.listeners.size === 0) return;
    const s = { ...r };
    for (const fn of this.listeners) {
      try {
        fn(s);
      } catch {
        /* a listener's failure is its own */
      }
    }
  }
}

/** Parents before their children, siblings in the order they started (times may tie). */
function treeOrder(spans: SpanRecord[], startOrder: string[]): SpanRecord[] {
  const rank = new Map(startOrder.map((id, i) => [id, i]));
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string | undefined, SpanRecord[]>();
  for (const s of spans) {
    const parent = s.parentId && ids.has(s.parentId) ? s.parentId : undefined;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(s);
  }
  const out: SpanRecord[] = [];
  const walk = (parent: string | undefined) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0))) {
      out.push(s);
      walk(s.id);
    }
  };
  walk(undefined);
  return out;
}

/**
 * When `span` started, in ms since its exchange did, to a few microseconds. The SDK's start times are
 * whole milliseconds (Date.now()) while its durations are not: a step starting in the next
 * millisecond would seem to start after a 0.4 ms exchange ended. The clock read as each span
 * started (onStart runs inside startSpan) gives both the same resolution.
 */
function perfStart(k: Kept, span: ReadableSpan): number | undefined {
  const at = k.perf.get(span.spanContext().spanId);
  const root = k.perf.get(k.summary.id);
  return at === undefined || root === undefined ? undefined : at - root;
}

function toSpanRecord(span: ReadableSpan, t0: number, perfStart?: number): SpanRecord {
  const sdkStart = ms(span.startTime);
  // events are stamped as the SDK's start plus the time elapsed since: moved with the start
  const start = perfStart === undefined ? sdkStart - t0 : perfStart;
  const a = span.attributes;
  const role: SpanRecord['role'] =
    a['engine.route.id'] !== undefined
      ? 'exchange'
      : span.kind === SpanKind.CLIENT
        ? 'call'
        : span.kind === SpanKind.PRODUCER
          ? 'publish'
          : a['engine.step.index'] !== undefined
            ? 'step'
            : 'span';
  return {
    id: span.spanContext().spanId,
    parentId: span.parentSpanContext?.spanId,
    name: span.name,
    role,
    start: round(start),
    durationMs: round(ms(span.duration)),
    failed: span.status.code === SpanStatusCode.ERROR || a['error.type'] !== undefined,
    attributes: plain(a),
    events: span.events.map((e) => ({
      name: e.name,
      at: round(start + ms(e.time) - sdkStart),
      attributes: plain(e.attributes ?? {}),
    })),
  };
}

function plain(a: Record<string, unknown>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(a)) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.join(', ');
  }
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;
