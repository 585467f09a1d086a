// The exchange: the message a route works on, from its source through every step.
// JSONata expressions take the exchange itself as their input (no copy per evaluation): `body.buyCurrency`, `headers.authorization`,
// `query.validate_only`, `params.externalReferenceNo`, `vars.rate`, `user.id`.

import type { Logger } from 'pino';

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
}

export function createExchange(init: NewExchange): Exchange {
  return {
    routeId: init.routeId,
    correlationId: init.correlationId,
    body: init.body,
    headers: init.headers ?? {},
    query: init.query ?? {},
    params: init.params ?? {},
    vars: {},
    user: init.user,
    status: 200,
    responseHeaders: {},
    rawBody: init.rawBody,
    message: init.message,
    signal: init.signal,
    // most exchanges never log: the child logger (with route and correlation id) is made on demand
    _log: init.log,
    get log(): Logger {
      return (this._log ??= init.logger!.child({ route: init.routeId, correlationId: init.correlationId }));
    },
  } as Exchange & { _log?: Logger };
}
