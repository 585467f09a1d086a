// The exchange: the message a route works on, from its source through every step.
// JSONata expressions take the exchange itself as their input (no copy per evaluation):
// `body.buyCurrency`, `headers.authorization`, `query.validate_only`, `params.externalReferenceNo`,
// `vars.rate`, `user.id`.

import type { Logger } from 'pino';
import type { Context } from '@opentelemetry/api';
import type { VendorAnswer } from './vendor-answer.ts';

export interface UserContext {
  /** the subject of a verified bearer token, or `anonymous` */
  id: string;
  authenticated: boolean;
}

export interface Exchange {
  /** id of the route running the exchange */
  routeId: string;
  correlationId: string;
  /** request or message body; steps replace it */
  body: unknown;
  /** incoming headers, lower-case names */
  headers: Record<string, string | undefined>;
  /** query string parameters */
  query: Record<string, string | undefined>;
  /** path parameters of the HTTP source */
  params: Record<string, string>;
  /** variables set by steps (`set`, `to-http` with `into`, ...) */
  vars: Record<string, unknown>;
  /** the caller, when a gateway or token set one */
  user?: UserContext;
  /** response status and headers the route answers with */
  status: number;
  responseHeaders: Record<string, string>;
  /** raw body bytes where a source keeps them (webhook signatures) */
  rawBody?: Buffer;
  /** message metadata of message sources (AMQP message id, delivery count, ...) */
  message?: Record<string, unknown>;
  /** set by a step that ends the route early (`choice` branch with `stop`) */
  stopped?: boolean;
  /** the error being handled, inside on-exception */
  error?: unknown;
  /** called once the exchange ended, with its error if it failed (dedupe marks, cleanups) */
  completions?: ((error?: unknown) => void)[];
  log: Logger;
  /** abort signal of the exchange: set when the caller went away or the engine shuts down */
  signal?: AbortSignal;
  /** OpenTelemetry context of the running step (pipeline/tracing.ts); undefined while tracing is off */
  trace?: Context;
  /** the last vendor answer a to-http step took as a success (logged when the answer breaks the output schema) */
  vendorAnswer?: VendorAnswer;
  /**
   * The failed exchange this one replays (its id in the durable store): the input was verified
   * when it was received, so verify-signature trusts it (its timestamp is past the tolerance by now)
   */
  replayOf?: string;
  /** the key the dedupe step claimed for this input (the outbox keeps it with the event) */
  dedupeKey?: string;
  /** when the route must have answered (pipeline/deadline.ts); vendor calls end with it */
  deadline?: ExchangeDeadline;
  /** when the exchange's current stretch of synchronous work started (pipeline/slices.ts); undefined once it waited */
  sliceStart?: number;
}

/** When an exchange must have answered (pipeline/deadline.ts sets it from the route's `deadline:`). */
export interface ExchangeDeadline {
  /** performance.now() by which the route must answer */
  at: number;
  /** its length in ms, and whose it is */
  ms: number;
  from: 'route' | 'header';
}

export interface NewExchange {
  routeId: string;
  correlationId: string;
  body?: unknown;
  headers?: Record<string, string | undefined>;
  query?: Record<string, string | undefined>;
  params?: Record<string, string>;
  user?: UserContext;
  rawBody?: Buffer;
  message?: Record<string, unknown>;
  /** a logger for the exchange; or `logger`, whose child is made only when a step logs */
  log?: Logger;
  logger?: Logger;
  signal?: AbortSignal;
  replayOf?: string;
}

export function createExchange(init: NewExchange): Exchange {
  return new ExchangeRecord(init);
}

/** A class rather than an object literal with a getter: one shape, the getter on the prototype. */
class ExchangeRecord implements Exchange {
  routeId: string;
  correlationId: string;
  body: unknown;
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  params: Record<string, string>;
  vars: Record<string, unknown> = {};
  user?: UserContext;
  status = 200;
  responseHeaders: Record<string, string> = {};
  rawBody?: Buffer;
  message?: Record<string, unknown>;
  // declared only: set when used, so expressions reading the exchange (`$keys($)`) see no extra keys
  declare stopped?: boolean;
  declare error?: unknown;
  declare completions?: ((error?: unknown) => void)[];
  signal?: AbortSignal;
  // private fields: JSONata sees the exchange as its input, and these are not part of it
  #log: Logger | undefined;
  #logger: Logger | undefined;
  #trace: Context | undefined;
  #vendorAnswer: VendorAnswer | undefined;
  #replayOf: string | undefined;
  #dedupeKey: string | undefined;
  #deadline: ExchangeDeadline | undefined;
  #sliceStart: number | undefined;

  constructor(init: NewExchange) {
    this.routeId = init.routeId;
    this.correlationId = init.correlationId;
    this.body = init.body;
    this.headers = init.headers ?? {};
    this.query = init.query ?? {};
    this.params = init.params ?? {};
    this.user = init.user;
    this.rawBody = init.rawBody;
    this.message = init.message;
    this.signal = init.signal;
    this.#log = init.log;
    this.#logger = init.logger;
    this.#replayOf = init.replayOf;
  }

  // most exchanges never log: the child logger (with route and correlation id) is made on demand
  get log(): Logger {
    return (this.#log ??= this.#logger!.child({ route: this.routeId, correlationId: this.correlationId }));
  }

  get trace(): Context | undefined {
    return this.#trace;
  }
  set trace(ctx: Context | undefined) {
    this.#trace = ctx;
  }

  get vendorAnswer(): VendorAnswer | undefined {
    return this.#vendorAnswer;
  }
  set vendorAnswer(a: VendorAnswer | undefined) {
    this.#vendorAnswer = a;
  }

  get replayOf(): string | undefined {
    return this.#replayOf;
  }

  get dedupeKey(): string | undefined {
    return this.#dedupeKey;
  }
  set dedupeKey(k: string | undefined) {
    this.#dedupeKey = k;
  }

  get deadline(): ExchangeDeadline | undefined {
    return this.#deadline;
  }
  set deadline(d: ExchangeDeadline | undefined) {
    this.#deadline = d;
  }

  get sliceStart(): number | undefined {
    return this.#sliceStart;
  }
  set sliceStart(t: number | undefined) {
    this.#sliceStart = t;
  }

  /** A copy of `ex` with `patch` applied (a split item), sharing its logger. */
  static derive(ex: Exchange, patch: Partial<Exchange>): Exchange {
    if (!(ex instanceof ExchangeRecord)) return Object.assign({ ...ex, log: ex.log }, patch);
    const sub = new ExchangeRecord({
      routeId: ex.routeId,
      correlationId: ex.correlationId,
      body: ex.body,
      headers: ex.headers,
      query: ex.query,
      params: ex.params,
      user: ex.user,
      rawBody: ex.rawBody,
      message: ex.message,
      signal: ex.signal,
      log: ex.#log,
      logger: ex.#logger,
      replayOf: ex.#replayOf,
    });
    sub.vars = ex.vars;
    sub.status = ex.status;
    sub.responseHeaders = ex.responseHeaders;
    sub.stopped = ex.stopped;
    sub.error = ex.error;
    sub.completions = ex.completions;
    sub.#trace = ex.#trace;
    sub.#vendorAnswer = ex.#vendorAnswer;
    sub.#dedupeKey = ex.#dedupeKey;
    sub.#deadline = ex.#deadline;
    sub.#sliceStart = ex.#sliceStart;
    return Object.assign(sub, patch);
  }
}

export const deriveExchange = ExchangeRecord.derive;
