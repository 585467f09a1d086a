// Records an input that failed for good as a failed exchange in the engine's durable store, so an
// operator can see it and run it again (docs/failed-exchanges.md). The sources call it: an AMQP
// message before it is rejected (or past max-deliveries), a cron run that failed, an HTTP answer
// >= 500 of a route with `record-failures: true`. The body is kept as received (a replay runs it
// again); the cause and detail are masked (a vendor may echo a credential into them) and headers
// that carry credentials are dropped. One error log line and one count per record.

import { trace } from '@opentelemetry/api';
import type { EngineServices } from '../pipeline/compile-context.ts';
import type { CompiledRoute } from '../pipeline/route.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import type { PlatformError } from '../core/errors.ts';
import { CODE } from '../core/error-catalog.ts';
import { isCredentialHeader, maskText } from '../observability/mask.ts';
import { logSecrets } from '../observability/logger.ts';
import { durableStoreFor, openedDurableStore } from './durable-for.ts';
import type { FailedExchange } from './durable.ts';

/** One failed input, as a source knows it. */
export interface FailedInput {
  source: 'amqp' | 'http' | 'cron';
  /** the mapped platform error the route ended with (or the source's own, e.g. a body that is not JSON) */
  error: PlatformError;
  /** the raw input text, as received */
  body?: string;
  /** the input's headers (lower-case names); credentials are dropped here */
  headers?: Record<string, string | string[] | undefined>;
  /** what a replay needs besides body and headers, by source (FailedExchangeInput.context) */
  context: Record<string, unknown>;
  attempts?: number;
  firstAt?: Date;
  lastAt?: Date;
  correlationId?: string;
  /** the exchange that failed, when one ran: its trace id; a replay's (`replayOf`) is never recorded */
  ex?: Exchange;
}

/** What a record names of its route: its id and version (the outbox publisher knows no more). */
export type RecordedRoute = Pick<CompiledRoute, 'id' | 'version'>;

export interface FailedRecorder {
  /**
   * Records the input; undefined for a replay's exchange (the replay settles its own record).
   * Rejects when the store cannot be reached: the caller keeps the input (an AMQP release).
   */
  record(route: RecordedRoute, input: FailedInput): Promise<FailedExchange | undefined>;
}

/** Longest cause, detail and header value kept (masked), characters. */
export const MAX_CAUSE = 2000;
const MAX_HEADER = 8192;

// one recorder per engine, like the durable store: keyed by the engine's own onClose hook
const recorders = new WeakMap<EngineServices['onClose'], FailedRecorder>();

/** The engine's recorder; it opens the durable store with its first record, not before. */
export function failedRecorderFor(services: EngineServices): FailedRecorder {
  let r = recorders.get(services.onClose);
  if (!r) {
    r = new Recorder(services);
    recorders.set(services.onClose, r);
    // the open-records gauge reads the store at a scrape once something opened it
    services.metrics.countOpenFailed = async () => {
      const store = openedDurableStore(services);
      return store ? (await store).countOpen() : undefined;
    };
  }
  return r;
}

class Recorder implements FailedRecorder {
  private refreshing?: Promise<void>;
  private again = false;

  constructor(private readonly services: EngineServices) {}

  async record(route: RecordedRoute, input: FailedInput): Promise<FailedExchange | undefined> {
    if (input.ex?.replayOf) return undefined;
    const { services } = this;
    const secrets = logSecrets(services.logger);
    const e = input.error;
    const code = codeOf(e);
    const now = new Date();
    const spanContext = input.ex?.trace ? trace.getSpanContext(input.ex.trace) : undefined;
    const store = await durableStoreFor(services);
    const rec = await store.recordFailed({
      route: route.id,
      routeVersion: route.version,
      source: input.source,
      code,
      cause: noNul(maskText(causeOf(e), secrets, MAX_CAUSE)),
      detail: e.detail === undefined ? undefined : noNul(maskText(e.detail, secrets, MAX_CAUSE)),
      body: input.body === undefined ? undefined : noNul(input.body),
      headers: keptHeaders(input.headers, (v) => noNul(maskText(v, secrets, MAX_HEADER))),
      context: noNulDeep(input.context) as Record<string, unknown>,
      attempts: input.attempts ?? 1,
      firstAt: input.firstAt ?? now,
      lastAt: input.lastAt ?? now,
      traceId: spanContext?.traceId,
      correlationId: input.correlationId ?? input.ex?.correlationId,
    });
    services.metrics.failedExchanges.inc({ route: route.id, code });
    services.logger.error(
      {
        failedId: rec.id,
        route: route.id,
        code,
        source: input.source,
        attempts: rec.attempts,
        correlationId: rec.correlationId,
        ...(typeof input.context.messageId === 'string' ? { messageId: input.context.messageId } : {}),
      },
      `failed exchange ${rec.id} recorded: route ${route.id}, ${code}: ${rec.detail ?? e.title}`,
    );
    this.refresh(store);
    return rec;
  }

  /** Sets the open-records gauge from the store: one count at a time, one more if records came meanwhile. */
  private refresh(store: { countOpen(): Promise<number> }): void {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        this.services.metrics.failedOpen.set(await store.countOpen());
      } while (this.again);
    })()
      .catch(() => {
        /* the next scrape counts again */
      })
      .finally(() => {
        this.refreshing = undefined;
      });
  }
}

// PostgreSQL text and jsonb hold no NUL character: a binary body (or a parser's message quoting it)
// keeps its place with U+FFFD, as invalid UTF-8 bytes already have when decoded
const noNul = (s: string): string => (s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s);
function noNulDeep(v: unknown): unknown {
  if (typeof v === 'string') return noNul(v);
  if (Array.isArray(v)) return v.map(noNulDeep);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [noNul(k), noNulDeep(x)]));
  return v;
}

/** The platform code of an error; one the route left without a code gets the engine's own by kind. */
export function codeOf(e: PlatformError): string {
  if (e.code) return e.code;
  switch (e.kind) {
    case 'validation':
    case 'unsupported-media':
    case 'payload-too-large':
      return CODE.validation;
    case 'unauthorized':
      return CODE.unauthorized;
    case 'forbidden':
      return CODE.forbidden;
    case 'conflict':
      return CODE.conflict;
    case 'rate-limited':
      return CODE.tooManyRequests;
    case 'not-found':
      return CODE.notFound;
    default:
      return CODE.generic;
  }
}

/** The raw cause in words: kind and detail, the vendor's status, code and body, field errors, the causes below. */
export function causeOf(e: PlatformError): string {
  const parts = [`${e.kind}: ${e.detail ?? e.title}`];
  if (e.vendorStatus !== undefined)
    parts.push(`vendor status ${e.vendorStatus}${e.vendorCode ? ` (${e.vendorCode})` : ''}`);
  if (e.vendorBody !== undefined)
    parts.push(`vendor body ${typeof e.vendorBody === 'string' ? e.vendorBody : JSON.stringify(e.vendorBody)}`);
  if (e.errors?.length) parts.push(e.errors.map((f) => `${f.field}: ${f.message}`).join('; '));
  let c: unknown = e.cause;
  for (let depth = 0; c !== undefined && c !== null && depth < 5; depth++) {
    const text = c instanceof Error ? c.message : String(c);
    if (text && !parts.includes(text)) parts.push(text);
    c = c instanceof Error ? c.cause : undefined;
  }
  return parts.join('; ');
}

/** Headers to keep: strings (lists joined), credentials dropped, the rest masked. */
function keptHeaders(headers: FailedInput['headers'], mask: (v: string) => string): Record<string, string> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || isCredentialHeader(k)) continue;
    out[k.toLowerCase()] = mask(Array.isArray(v) ? v.join(', ') : String(v));
  }
  return out;
}
