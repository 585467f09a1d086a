// Drives one test case's input into a running engine: an HTTP request on its listener, an
// in-process call of a route, or a message handed to a message route as its source would.

import { randomUUID } from 'node:crypto';
import type { RunningEngine } from '../engine.ts';
import { createExchange } from '../pipeline/exchange.ts';
import { runRoute } from '../pipeline/route.ts';
import { PlatformError, problemOf, toPlatformError } from '../core/errors.ts';
import { sign } from '../outbound/webhook-signature.ts';
import type { TestCase } from '../dsl/route-test-schema.ts';

export interface CaseAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** how a message settled */
  outcome?: 'accepted' | 'rejected' | 'released';
}

/** Thrown for an input the engine cannot take (no such route, a key that is not set). */
export class InputError extends Error {}

function parsed(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function httpRequest(engine: RunningEngine, r: NonNullable<TestCase['request']>): Promise<CaseAnswer> {
  const url = new URL(r.path, engine.url);
  for (const [k, v] of Object.entries(r.query ?? {})) url.searchParams.append(k, String(v));
  const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const headers: Record<string, string> = {
    ...(body !== undefined && typeof r.body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...r.headers,
  };
  if (r.sign) {
    const secret = r.sign.secret ?? engine.values.keys.resolve(r.sign.key!)?.value;
    if (!secret) throw new InputError(`sign: environmental key '${r.sign.key}' is not set in this environment`);
    const id = r.sign.id ?? `msg_${randomUUID()}`;
    const ts = String(r.sign.timestamp ?? Math.floor(Date.now() / 1000));
    Object.assign(headers, {
      'webhook-id': id,
      'webhook-timestamp': ts,
      'webhook-signature': sign(secret, id, ts, body ?? ''),
    });
  }
  const res = await fetch(url, { method: r.method ?? 'POST', headers, body });
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    out[k] = v;
  });
  return { status: res.status, headers: out, body: parsed(await res.text()) };
}

async function directCall(engine: RunningEngine, c: NonNullable<TestCase['call']>): Promise<CaseAnswer> {
  if (!engine.routes.some((r) => r.id === c.route)) throw new InputError(`no route '${c.route}' is loaded`);
  const correlationId = randomUUID();
  try {
    const r = await engine.call(c.route, {
      body: c.body,
      headers: lower(c.headers),
      query: c.query,
      params: c.params,
      correlationId,
      user: c.user ? { id: c.user.id, authenticated: c.user.authenticated ?? true } : undefined,
    });
    return { status: r.status, headers: r.headers, body: r.body };
  } catch (e) {
    const err = e instanceof PlatformError ? e : toPlatformError(e);
    return { status: err.status, headers: {}, body: problemOf(err, correlationId) };
  }
}

async function deliver(engine: RunningEngine, m: NonNullable<TestCase['message']>): Promise<CaseAnswer> {
  const route = engine.routes.find((r) => r.id === m.route);
  if (!route) throw new InputError(`no route '${m.route}' is loaded`);
  const messageId = m.id ?? randomUUID();
  let body = m.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      /* a text message */
    }
  }
  const ex = createExchange({
    routeId: route.id,
    correlationId: messageId,
    body,
    headers: lower(m.headers),
    message: { messageId, queue: 'route-test', redelivered: !!m.redelivered, deliveryCount: m.redelivered ? 1 : 0 },
    logger: engine.services.logger,
  });
  const out = await runRoute(route, ex, engine.services.metrics);
  if (!out.error) return { status: ex.status, headers: ex.responseHeaders, body: ex.body, outcome: 'accepted' };
  return {
    status: out.error.status,
    headers: {},
    body: problemOf(out.error, messageId),
    outcome: out.error.transient ? 'released' : 'rejected',
  };
}

function lower(h: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(h ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

export function runInput(engine: RunningEngine, c: TestCase): Promise<CaseAnswer> {
  if (c.request) return httpRequest(engine, c.request);
  if (c.call) return directCall(engine, c.call);
  return deliver(engine, c.message!);
}
