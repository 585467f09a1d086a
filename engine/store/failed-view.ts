// What the CLI and the console show of failed exchanges: their filters read from text (a time is
// ISO 8601 or a duration back from now, `2h`), and records masked by the one masking policy (the
// body, headers and cause may carry a credential a vendor or caller put there).

import { isSecretHeader, maskDeep, maskSecret, maskText, NO_SECRETS, type Secrets } from '../observability/mask.ts';
import type { AuditEntry, FailedExchange, FailedFilter, FailedStatus } from './durable.ts';

/** A bad filter value; the message names it. */
export class FilterError extends Error {}

const STATUSES: FailedStatus[] = ['open', 'replaying', 'replayed', 'discarded'];
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** longest body shown: enough to read a payment message, bounded for a list of many */
const BODY_MAX = 64 * 1024;

/** `2h` (back from now), `30m`, `7d`, or an ISO 8601 time. */
export function parseTime(name: string, v: string, now = Date.now()): Date {
  const d = /^(\d{1,6})([smhdw])$/.exec(v.trim());
  if (d) return new Date(now - Number(d[1]) * UNIT_MS[d[2]!]!);
  const t = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(t))
    throw new FilterError(
      `'${name}' must be an ISO 8601 time or a duration back from now like 30m, 2h, 7d; got '${v.slice(0, 40)}'`,
    );
  return new Date(t);
}

export interface FilterText {
  route?: string;
  code?: string;
  status?: string;
  since?: string;
  until?: string;
  limit?: string | number;
}

/** The filter the texts name; `status` defaults to `defaultStatus` ('any' for none). */
export function parseFilter(t: FilterText, defaultStatus: FailedStatus | 'any' = 'open'): FailedFilter {
  const f: FailedFilter = {};
  if (t.route) f.route = t.route;
  if (t.code) f.code = t.code;
  const status = t.status || defaultStatus;
  if (status !== 'any') {
    if (!STATUSES.includes(status as FailedStatus))
      throw new FilterError(
        `'status' must be one of ${[...STATUSES, 'any'].join(', ')}; got '${String(status).slice(0, 40)}'`,
      );
    f.status = status as FailedStatus;
  }
  if (t.since) f.since = parseTime('since', t.since);
  if (t.until) f.until = parseTime('until', t.until);
  if (t.limit !== undefined && t.limit !== '') {
    const n = Number(t.limit);
    if (!Number.isInteger(n) || n < 1 || n > 10_000)
      throw new FilterError(`'limit' must be a whole number from 1 to 10000; got '${String(t.limit).slice(0, 20)}'`);
    f.limit = n;
  }
  return f;
}

/** Whether a filter names anything (a bulk action without one needs `--all-matching`). */
export function narrows(f: FailedFilter): boolean {
  return !!(f.route || f.code || f.since || f.until);
}

/** A record as shown: body, headers, cause, detail and context masked. */
export function maskRecord(r: FailedExchange, secrets: Secrets = NO_SECRETS): FailedExchange {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) headers[k] = isSecretHeader(k) ? maskSecret(v) : maskText(v, secrets);
  return {
    ...r,
    headers,
    body: r.body === undefined ? undefined : maskText(r.body, secrets, BODY_MAX),
    cause: r.cause === undefined ? undefined : maskText(r.cause, secrets),
    detail: r.detail === undefined ? undefined : maskText(r.detail, secrets),
    context: maskDeep(r.context, secrets) as Record<string, unknown>,
  };
}

/** An audit entry as shown (its outcome may quote a cause). */
export function maskAudit(e: AuditEntry, secrets: Secrets = NO_SECRETS): AuditEntry {
  return { ...e, outcome: maskText(e.outcome, secrets) };
}
