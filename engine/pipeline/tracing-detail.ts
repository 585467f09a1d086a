// What an exchange's spans carry beyond names and statuses while an in-process consumer asks for
// it (the console's exchange recorder): the bodies each step received and produced, each vendor
// call's request and answer, each event published and how an error was mapped, as span events.
// Masked as logs are (secret fields by name, credentials by shape, configured secrets by value)
// and bounded. Off (the engine's `tracing.detail` undefined) unless installed: every hook is
// called only where a span exists, and then checks it once. An OTLP exporter running beside the console gets these
// events too: the same spans, one model of what happened.

import type { Span } from '@opentelemetry/api';
import type { Exchange } from './exchange.ts';
import type { PlatformError } from '../core/errors.ts';
import { isSecretHeader, maskSecret, maskText } from '../observability/mask.ts';
import { isSecretKey } from '../config/env-keys.ts';
import type { EngineTracing, SpanDetail } from './engine-tracing.ts';
import { boundedJson } from './bounded-json.ts';

/** Characters past `bodyLimit` still written, so that a token cut at the limit is still recognised. */
const MARGIN = 2048;

/**
 * A value as masked JSON text, at most `bodyLimit` characters: written only as far as it is kept
 * (bounded-json.ts: a 1.3 MB batch costs its first few KB), fields named like a credential masked
 * by the replacer as it goes, then credentials by shape and configured secrets by value in the text.
 */
function maskedJson(v: unknown, d: SpanDetail): string {
  if (v === undefined) return '';
  let s: string;
  try {
    s = typeof v === 'string' ? v : (boundedJson(v, d.bodyLimit + MARGIN, maskField) ?? '');
  } catch {
    return '[not serialisable]';
  }
  return maskText(s, d.secrets, d.bodyLimit);
}

/**
 * Field names seen, and whether they name a credential (names repeat: checked once each). Process-wide
 * on purpose: the answer depends on the name alone, never on an engine's settings.
 */
const secretNames = new Map<string, boolean>();

function maskField(this: unknown, key: string, x: unknown): unknown {
  if (x === null || typeof x === 'object' || key === '') return x;
  let secret = secretNames.get(key);
  if (secret === undefined) {
    secret = isSecretKey(key) || isSecretHeader(key);
    if (secretNames.size < 10_000) secretNames.set(key, secret);
  }
  return secret ? maskSecret(x) : x;
}

const live = (t: EngineTracing, span: Span | undefined): span is Span =>
  span !== undefined && t.detail !== undefined && span.isRecording();

function bodyText(d: SpanDetail, body: unknown, reuse: boolean): string {
  const last = d.last;
  if (reuse && last !== undefined && last.body === body && body !== null && typeof body === 'object') return last.text;
  const text = maskedJson(body, d);
  d.last = { body, text };
  return text;
}

/** The body (and query, path parameters) an exchange started with. */
export function exchangeReceived(t: EngineTracing, span: Span, ex: Exchange): void {
  if (!live(t, span)) return;
  const d = t.detail!;
  span.addEvent('request', {
    'engine.body': bodyText(d, ex.body, false),
    ...(Object.keys(ex.query).length ? { 'engine.query': maskedJson(ex.query, d) } : {}),
    ...(Object.keys(ex.params).length ? { 'engine.params': maskedJson(ex.params, d) } : {}),
  });
}

/** The answer of a successful exchange: what its last step produced. */
export function exchangeAnswered(t: EngineTracing, span: Span, ex: Exchange): void {
  if (!live(t, span)) return;
  span.addEvent('answer', { 'engine.status': ex.status, 'engine.body': bodyText(t.detail!, ex.body, true) });
}

/**
 * What a step received (`phase` 'received') or left (`produced`) as the exchange body; a step
 * leaves the exchange's `vars` too, when it has any (masked as bodies are).
 */
export function stepBody(t: EngineTracing, span: Span, phase: 'received' | 'produced', ex: Exchange): void {
  if (!live(t, span)) return;
  const d = t.detail!;
  const body = bodyText(d, ex.body, phase === 'received');
  if (phase === 'received' || !hasVars(ex.vars)) span.addEvent(phase, { 'engine.body': body });
  else span.addEvent(phase, { 'engine.body': body, 'engine.vars': maskedJson(ex.vars, d) });
}

const hasVars = (vars: Record<string, unknown>) => {
  for (const _ in vars) return true;
  return false;
};

/** A vendor call attempt as sent: path and query (no host), headers and body, masked. */
export function callRequest(
  t: EngineTracing,
  span: Span | undefined,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
): void {
  if (!live(t, span)) return;
  const detail = t.detail!;
  let target = url;
  try {
    const u = new URL(url);
    target = u.pathname + u.search;
  } catch {
    /* shown as given */
  }
  const shown: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) shown[k] = isSecretHeader(k) || isSecretKey(k) ? maskSecret(v) : v;
  const secrets = detail.secrets.with(secretValues(headers));
  span.addEvent('request', {
    'url.path': maskText(target, secrets, detail.bodyLimit),
    'engine.headers': maskedJson(shown, detail),
    'engine.body': body === undefined ? '' : maskedJson(parsed(body), { bodyLimit: detail.bodyLimit, secrets }),
  });
}

/** A vendor's answer to one attempt. */
export function callAnswer(t: EngineTracing, span: Span | undefined, r: { status: number; body: unknown }): void {
  if (!live(t, span)) return;
  span.addEvent('answer', { 'http.response.status_code': r.status, 'engine.body': maskedJson(r.body, t.detail!) });
}

/** A CloudEvent as published. */
export function eventPublished(t: EngineTracing, span: Span | undefined, event: unknown): void {
  if (!live(t, span)) return;
  span.addEvent('event', { 'engine.body': maskedJson(event, t.detail!) });
}

/** A failed step or call: the error's kind, code and masked detail. */
export function spanFailed(t: EngineTracing, span: Span, error: unknown): void {
  if (!live(t, span)) return;
  span.addEvent('error', errorAttributes(t.detail!, error as PlatformError, 'error'));
}

/** How on-exception mapped an exchange's error (`from`: as raised; `to`: as answered). */
export function errorMapped(t: EngineTracing, span: Span | undefined, from: PlatformError, to: PlatformError): void {
  if (!live(t, span)) return;
  const d = t.detail!;
  span.addEvent('error.mapped', { ...errorAttributes(d, from, 'from'), ...errorAttributes(d, to, 'to') });
}

function errorAttributes(d: SpanDetail, e: PlatformError | undefined, prefix: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (!e || typeof e !== 'object') return out;
  const put = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '')
      out[`${prefix}.${k}`] = typeof v === 'number' ? v : maskText(String(v), d.secrets, d.bodyLimit);
  };
  put('kind', e.kind);
  put('status', e.status);
  put('code', e.code);
  put('title', e.title);
  put('detail', e.detail ?? (e as Error).message);
  put('vendorStatus', e.vendorStatus);
  put('vendorCode', e.vendorCode);
  return out;
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** The credentials a call sent (without their scheme), masked wherever a vendor echoes them. */
function secretValues(headers: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (!(isSecretHeader(k) || isSecretKey(k)) || typeof v !== 'string') continue;
    const cred = /^[A-Za-z]+\s+(\S+)$/.exec(v)?.[1] ?? v;
    out.push(cred);
  }
  return out;
}
