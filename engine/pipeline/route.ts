// A compiled route and how an exchange runs through it: the steps, then on-exception when a
// step failed. Sources decide what the outcome means (an HTTP answer, an ack, a release).

import type { Pipeline } from './pipeline.ts';
import type { Exchange } from './exchange.ts';
import { PlatformError, toPlatformError } from '../core/errors.ts';
import { matches, type Match, type CompiledProblem, type CompiledTemplate } from './error-templates.ts';
import type { Metrics } from '../observability/metrics.ts';
import { startExchangeSpan, endExchangeSpan, type EngineTracing } from './tracing.ts';
import { errorMapped } from './tracing-detail.ts';
import type { OutputCheck } from './output-check.ts';
import type { CoveragePoint } from './coverage.ts';
import { startDeadline, type RouteDeadline } from './deadline.ts';

export interface ExceptionHandler {
  when?: Match;
  template?: CompiledTemplate;
  problem?: CompiledProblem;
  steps?: Pipeline;
  log?: 'debug' | 'info' | 'warn' | 'error';
}

export interface RouteMeta {
  /** JSON Schema of the request body (from the first body validate step) */
  inputSchema?: Record<string, unknown>;
  inputSchemaFile?: string;
  /** JSON Schema of the answer (`output-schema`) */
  outputSchema?: Record<string, unknown>;
}

export interface CompiledRoute {
  id: string;
  file: string;
  description?: string;
  connector?: string;
  valuesName?: string;
  source: { kind: string; config: unknown; compiled: unknown };
  meta: RouteMeta;
  pipeline: Pipeline;
  handlers: ExceptionHandler[];
  /** the connector document (connector.yaml) whose on-exception the route took, having none of its own */
  handlersFrom?: string;
  /** the connector document whose `values:` the route took, naming none of its own */
  valuesFrom?: string;
  /** the client profiles its steps name (`client:`) */
  clients?: string[];
  /** the parameters of this instance of a route template (a file with `instances:`) */
  instance?: Record<string, string | number | boolean>;
  /** checks a successful answer against the output-schema (absent: no schema, or `check-output: false`) */
  output?: OutputCheck;
  /** the engine's tracing (EngineServices.tracing; absent: never traced) */
  tracing?: EngineTracing;
  /** one per handler, counting the errors it took (only with `engine test --coverage`) */
  handlerPoints?: CoveragePoint[];
  /**
   * `sha256:<hex>`: digest of what the route is built from (its file, the files it names, its
   * values as they resolve), set once per load from the reload fingerprint; failed exchanges keep it
   */
  version?: string;
  /** the route's total time (`deadline:`): set on each exchange as it starts */
  deadline?: RouteDeadline;
}

export interface Outcome {
  /** the mapped error, when the exchange failed */
  error?: PlatformError;
}

/**
 * Runs the exchange; never throws. `then`, when given, turns the outcome into what the promise
 * resolves with (or rejects with, if it throws): a caller mapping the outcome saves the promise and
 * the turn of the microtask queue of an await of its own.
 *
 * Not an async function: a suspended one keeps a frame of its locals, and every HTTP request and
 * message runs here once (docs/benchmarks.md, session 18). A pipeline that finishes synchronously
 * has its outcome settled before this returns, as before; one that waits continues on its promise.
 */
export function runRoute(route: CompiledRoute, ex: Exchange, metrics: Metrics): Promise<Outcome>;
export function runRoute<T>(
  route: CompiledRoute,
  ex: Exchange,
  metrics: Metrics,
  then: (out: Outcome) => T,
): Promise<T>;
export function runRoute<T>(
  route: CompiledRoute,
  ex: Exchange,
  metrics: Metrics,
  then?: (out: Outcome) => T,
): Promise<Outcome | T> {
  try {
    const t = route.tracing;
    const span = t?.tracer ? startExchangeSpan(t, route, ex) : undefined;
    if (route.deadline) startDeadline(ex, route.deadline);
    const end = (out: Outcome): Outcome | T => {
      if (ex.completions) for (const done of ex.completions) done(out.error);
      if (span) endExchangeSpan(t!, route, span, ex, out.error);
      return then ? then(out) : out;
    };
    const fail = (err: unknown): Promise<Outcome | T> => {
      const raised = toPlatformError(err);
      return handleError(route, ex, raised).then((error) => {
        if (span) errorMapped(t!, span, raised, error);
        metrics.errors.inc({ route: route.id, kind: error.kind, code: error.code ?? '' });
        return end({ error });
      });
    };
    // an answer that breaks the route's output schema is the engine's 502, not on-exception's to map
    const finish = (): Outcome | T | Promise<Outcome | T> => {
      let broken: PlatformError | undefined;
      try {
        broken = route.output?.(ex);
      } catch (err) {
        return fail(err);
      }
      if (broken) metrics.errors.inc({ route: route.id, kind: broken.kind, code: broken.code ?? '' });
      return end(broken ? { error: broken } : {});
    };
    let r: void | Promise<void>;
    try {
      r = route.pipeline(ex);
    } catch (err) {
      return fail(err);
    }
    if (r && typeof (r as Promise<void>).then === 'function') return (r as Promise<void>).then(finish, fail);
    return Promise.resolve(finish());
  } catch (err) {
    return Promise.reject(err);
  }
}

async function handleError(route: CompiledRoute, ex: Exchange, e: PlatformError): Promise<PlatformError> {
  let mapped = e;
  const i = route.handlers.findIndex((x) => matches(x.when, e));
  const h = i < 0 ? undefined : route.handlers[i];
  if (h && route.handlerPoints) route.handlerPoints[i].hits++;
  try {
    if (h?.template) mapped = await h.template.map(e);
    if (h?.problem) mapped = await h.problem.apply(mapped);
    if (h?.steps) {
      ex.error = mapped;
      await h.steps(ex);
    }
  } catch (inner) {
    ex.log.error({ err: inner }, 'on-exception handler failed');
    mapped = toPlatformError(inner);
  }
  const level = h?.log ?? (mapped.status >= 500 ? 'error' : 'warn');
  const cause = mapped.kind === 'internal' ? (e.cause ?? e) : undefined;
  ex.log[level](
    {
      kind: mapped.kind,
      status: mapped.status,
      code: mapped.code,
      vendorStatus: mapped.vendorStatus,
      vendorCode: mapped.vendorCode,
      detail: mapped.detail,
      ...(cause ? { err: cause } : {}),
    },
    'exchange failed',
  );
  return mapped;
}
