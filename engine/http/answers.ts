// The one writer of HTTP answers the engine sends itself: RFC 9457 problem details and small JSON
// or text answers, always with a content-length (no chunked framing for a few bytes).

import type { ServerResponse } from 'node:http';
import { problemOf, type PlatformError } from '../core/errors.ts';
import { newCorrelationId } from '../core/correlation-id.ts';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function correlationIdFrom(h: string | string[] | undefined): string {
  const v = Array.isArray(h) ? h[0] : h;
  // a caller's id is accepted only if it is a sane token, so logs cannot be forged through it
  return v && SANE_ID.test(v) ? v : newCorrelationId();
}

/** A problem document; `close` asks a keep-alive client to go away (shutdown, unread body). */
export function writeProblem(
  res: ServerResponse,
  err: PlatformError,
  correlationId: string,
  instance?: string,
  close = false,
): void {
  const payload = JSON.stringify(problemOf(err, correlationId, instance));
  const headers: Record<string, string | number> = {
    ...err.headers,
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(payload),
    'x-correlation-id': correlationId,
  };
  if (close) headers.connection = 'close';
  res.writeHead(err.status, headers).end(payload);
}

export function writeBody(
  res: ServerResponse,
  status: number,
  contentType: string,
  payload: string,
  close = false,
): void {
  const headers: Record<string, string | number> = {
    'content-type': contentType,
    'content-length': Buffer.byteLength(payload),
  };
  if (close) headers.connection = 'close';
  res.writeHead(status, headers).end(payload);
}

/** A path as shown in a problem: without the query, and short (it is the caller's text). */
export function shownPath(url: string | undefined): string {
  const p = (url ?? '/').split('?')[0];
  return p.length > 256 ? `${p.slice(0, 256)}...` : p;
}
