// The original input of a webhook as the outbox keeps it, so that a permanent refusal of its event
// becomes a failed exchange that can run again: the raw body text, the headers without credentials,
// and the request's method, path, query and path parameters.

import { isCredentialHeader } from '../observability/mask.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import type { RouteInfo } from '../pipeline/compile-context.ts';

/** Not needed to run the input again (credentials are dropped by the masking policy's isCredentialHeader). */
const DROPPED = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);

export interface WebhookInput {
  body?: string;
  headers: Record<string, string>;
  context: { method: string; path: string; query: Record<string, string>; params: Record<string, string> };
}

export function webhookInput(ex: Exchange, from: RouteInfo['from']): WebhookInput {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ex.headers)) {
    const n = k.toLowerCase();
    if (v === undefined || DROPPED.has(n) || isCredentialHeader(n)) continue;
    headers[n] = String(v);
  }
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(ex.query)) if (v !== undefined) query[k] = String(v);
  // the request's path: the route's template (`/webhooks/{id}`) with its parameters filled in
  const path = (from?.path ?? '').replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}|:([A-Za-z_][A-Za-z0-9_]*)/g, (m, a, b) => {
    const v = ex.params[(a ?? b) as string];
    return v !== undefined ? encodeURIComponent(v) : m;
  });
  const body = ex.rawBody
    ? ex.rawBody.toString('utf8')
    : ex.body === undefined
      ? undefined
      : typeof ex.body === 'string'
        ? ex.body
        : JSON.stringify(ex.body);
  return { body, headers, context: { method: from?.method ?? 'POST', path, query, params: { ...ex.params } } };
}
