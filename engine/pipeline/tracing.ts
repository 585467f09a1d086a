// OpenTelemetry spans of an exchange: one per exchange (a server or consumer span continuing an
// incoming W3C traceparent), one per step, one per vendor call attempt. Off unless
// tracing-sdk.ts installed a tracer on the engine's EngineTracing: the hot path then checks
// `tracing.tracer` once per exchange and per call, and allocates nothing. Contexts travel on the
// exchange (`ex.trace`), not through AsyncLocalStorage, so the off path pays no async-hooks cost either.
// Attributes name routes, steps, hosts and statuses only: never headers, bodies, URLs or details;
// masked bodies are added as span events only while a consumer asks for them (tracing-detail.ts).

import {
  trace,
  SpanKind,
  SpanStatusCode,
  ROOT_CONTEXT,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { Exchange } from './exchange.ts';
import type { PlatformError } from '../core/errors.ts';
import { exchangeAnswered, exchangeReceived, spanFailed } from './tracing-detail.ts';
import type { EngineTracing } from './engine-tracing.ts';

/** One engine's tracing (engine-tracing.ts), where the span functions below are. */
export { EngineTracing } from './engine-tracing.ts';

const headerGetter = {
  keys: (c: Record<string, string | undefined>) => Object.keys(c),
  get: (c: Record<string, string | undefined>, k: string) => c[k],
};
const headerSetter = {
  set: (c: Record<string, string>, k: string, v: string) => {
    c[k] = v;
  },
};

/** What an exchange span says of its route: a CompiledRoute (route.ts imports this file, so not named here). */
interface TracedRoute {
  id: string;
  connector?: string;
  source: { kind: string; config: unknown };
}

/** What a route's exchange span is called and tagged with: computed once per route. */
interface RouteSpanInfo {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  http: boolean;
}
// keyed by a route, which one engine compiled: per engine already (and derived from the route alone)
const routeInfo = new WeakMap<TracedRoute, RouteSpanInfo>();

function infoOf(route: TracedRoute): RouteSpanInfo {
  let info = routeInfo.get(route);
  if (info) return info;
  const attributes: Attributes = { 'engine.route.id': route.id, 'engine.source.kind': route.source.kind };
  if (route.connector) attributes['engine.connector'] = route.connector;
  const cfg = route.source.config as { method?: string; path?: string } | undefined;
  if (route.source.kind === 'http' && cfg?.path) {
    const method = cfg.method ?? 'POST';
    attributes['http.request.method'] = method;
    attributes['http.route'] = cfg.path;
    info = { name: `${method} ${cfg.path}`, kind: SpanKind.SERVER, attributes, http: true };
  } else if (route.source.kind === 'amqp') {
    attributes['messaging.system'] = 'amqp';
    attributes['messaging.operation.type'] = 'process';
    info = { name: `process ${route.id}`, kind: SpanKind.CONSUMER, attributes, http: false };
  } else {
    info = { name: route.id, kind: SpanKind.INTERNAL, attributes, http: false };
  }
  routeInfo.set(route, info);
  return info;
}

/**
 * Starts the exchange span, continuing a W3C `traceparent`/`tracestate` of the incoming headers
 * (HTTP headers, AMQP application properties), and makes it the exchange's context.
 */
export function startExchangeSpan(t: EngineTracing, route: TracedRoute, ex: Exchange): Span {
  const info = infoOf(route);
  const parent = ex.trace ?? t.propagator!.extract(ROOT_CONTEXT, ex.headers, headerGetter);
  const span = t.tracer!.startSpan(info.name, { kind: info.kind, attributes: info.attributes }, parent);
  span.setAttribute('engine.correlation_id', ex.correlationId);
  const queue = ex.message?.queue;
  if (typeof queue === 'string') span.setAttribute('messaging.destination.name', queue);
  const messageId = ex.message?.messageId;
  if (typeof messageId === 'string') span.setAttribute('messaging.message.id', messageId);
  ex.trace = trace.setSpan(parent, span);
  exchangeReceived(t, span, ex);
  return span;
}

export function endExchangeSpan(
  t: EngineTracing,
  route: TracedRoute,
  span: Span,
  ex: Exchange,
  error: PlatformError | undefined,
): void {
  const http = infoOf(route).http;
  const status = error ? error.status : ex.status;
  if (http) span.setAttribute('http.response.status_code', status);
  if (error) {
    span.setAttribute('error.type', error.kind);
    if (error.code) span.setAttribute('engine.error.code', error.code);
    // a refused request (4xx) is the caller's error, not the server's (OTel HTTP conventions)
    if (!http || status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: error.kind });
  } else {
    exchangeAnswered(t, span, ex);
  }
  span.end();
}

/**
 * Whether `ctx` holds a sampled span: steps of an exchange the sampler left out get no spans of
 * their own; its vendor calls still pass the (unsampled) trace on.
 */
export function recording(ctx: Context | undefined): boolean {
  return ctx !== undefined && trace.getSpan(ctx)?.isRecording() === true;
}

/** A step function with what its span is called (set where the step is compiled). */
interface NamedStep {
  traceName?: string;
  tracePath?: string;
}

/** Names the spans of a compiled step: its kind and where it sits in the route file. */
export function describeStep<S extends object>(step: S, kind: string, path: readonly (string | number)[]): S {
  const s = step as NamedStep;
  if (s.traceName === undefined) {
    s.traceName = kind;
    s.tracePath = path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '');
  }
  return step;
}

export function startStepSpan(t: EngineTracing, step: object, index: number, parent: Context): Span {
  const s = step as NamedStep;
  const attributes: Attributes = { 'engine.step.index': index };
  if (s.tracePath) attributes['engine.step.path'] = s.tracePath;
  return t.tracer!.startSpan(s.traceName ?? 'step', { attributes }, parent);
}

/** Ends a step or call span, marking it failed when `error` is given. */
export function endSpan(t: EngineTracing, span: Span, error?: unknown): void {
  if (error !== undefined) {
    const kind = (error as PlatformError)?.kind;
    span.setAttribute('error.type', typeof kind === 'string' ? kind : 'error');
    span.setStatus({ code: SpanStatusCode.ERROR, message: typeof kind === 'string' ? kind : undefined });
    spanFailed(t, span, error);
  }
  span.end();
}

/** A client span (a vendor call attempt, an event publication) under `parent`. */
export function startCallSpan(
  t: EngineTracing,
  parent: Context,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
): Span {
  return t.tracer!.startSpan(name, { kind, attributes }, parent);
}

/** The span of one vendor call attempt: method, target name, host and port; never the URL (paths carry IBANs). */
export function startHttpCallSpan(
  t: EngineTracing,
  parent: Context,
  method: string,
  target: string,
  url: string,
  attempt: number,
): Span {
  // an exchange the sampler left out: a non-recording span, only to pass the trace id on
  if (!recording(parent)) return t.tracer!.startSpan(method, { kind: SpanKind.CLIENT }, parent);
  const attributes: Attributes = { 'http.request.method': method, 'engine.target': target };
  try {
    const u = new URL(url);
    attributes['server.address'] = u.hostname;
    attributes['server.port'] = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  } catch {
    /* an unparsable URL fails the call itself */
  }
  if (attempt > 0) attributes['http.request.resend_count'] = attempt;
  return t.tracer!.startSpan(`${method} ${target}`, { kind: SpanKind.CLIENT, attributes }, parent);
}

/** `headers` plus the `traceparent` (and `tracestate`) of `span`, as a new object. */
export function withTraceHeaders(
  t: EngineTracing,
  headers: Record<string, string>,
  parent: Context,
  span: Span,
): Record<string, string> {
  const out = { ...headers };
  t.propagator!.inject(trace.setSpan(parent, span), out, headerSetter);
  return out;
}

/** The W3C trace context of `ctx` (CloudEvents distributed-tracing extension attributes). */
export function traceContextOf(t: EngineTracing, ctx: Context): { traceparent?: string; tracestate?: string } {
  const out: Record<string, string> = {};
  t.propagator!.inject(ctx, out, headerSetter);
  return out;
}

export { SpanKind };
