// What one engine's spans need to know: its tracer and propagator, the span detail an in-process
// consumer asked for, and those consumers. Its own file, as tracing.ts and tracing-detail.ts both read it.

import type { TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Secrets } from '../observability/mask.ts';

export interface SpanDetail {
  /** longest body text kept, characters */
  bodyLimit: number;
  /** literal secret values (configured secrets), compiled: masked wherever they appear, in any form */
  secrets: Secrets;
  /**
   * The last body serialised, by identity: a step receives what the step before produced (or what
   * the exchange started with), and nothing runs between that event and the next one, so the same
   * object is still the same text. Never reused after a step ran: it may have changed the object.
   */
  last?: { body: unknown; text: string };
}

/**
 * One engine's tracing (EngineServices.tracing; reloads keep it): two engines in a process trace,
 * record bodies and mask them each by their own settings, and closing one leaves the other's on.
 */
export class EngineTracing {
  /** the installed tracer; undefined while tracing is off (the one check of the hot path) */
  tracer: Tracer | undefined;
  propagator: TextMapPropagator | undefined;
  /** set while an in-process consumer records bodies (tracing-detail.ts); undefined otherwise */
  detail: SpanDetail | undefined;
  /** in-process span consumers (the console's recorder), added before the engine starts tracing */
  readonly consumers = new Set<SpanProcessor>();
  /**
   * most exchanges a second the consumers record when they alone read the spans (no exporter):
   * the rest are not traced (rate-sampler.ts); undefined: every one
   */
  recordPerSecond: number | undefined;

  /** Installs (or, with undefined, removes) the tracer and the W3C propagator. */
  install(t: Tracer | undefined, p?: TextMapPropagator): void {
    this.tracer = t;
    this.propagator = t ? p : undefined;
  }
}
