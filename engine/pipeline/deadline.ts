// A route's deadline: its total time (`deadline:` of the route), lowered by the caller's deadline
// header when the route names one (`deadline-header:`, a number of milliseconds). Vendor calls end
// their timeouts with it, and a retry that could not start before it is not made: the answer
// says the deadline was reached (a `timeout`, which the connector's error template maps).

import { PlatformError } from '../core/errors.ts';
import type { Exchange, ExchangeDeadline } from './exchange.ts';

export interface RouteDeadline {
  /** ms */
  ms: number;
  /** lower-case name of the incoming header that may lower it (ms) */
  header?: string;
}

/** Sets the exchange's deadline from the route's and the caller's header. */
export function startDeadline(ex: Exchange, d: RouteDeadline, now = performance.now()): void {
  let ms = d.ms;
  let from: ExchangeDeadline['from'] = 'route';
  const h = d.header ? ex.headers[d.header] : undefined;
  if (h !== undefined && /^\d{1,9}$/.test(h.trim())) {
    const asked = Number(h.trim());
    if (asked < ms) {
      ms = asked;
      from = 'header';
    }
  }
  ex.deadline = { at: now + ms, ms, from };
}

/** The failure of a call or retry that would start past the deadline (`attempt` 0: the first call). */
export function deadlineError(ex: Exchange, attempt: number, last: PlatformError | undefined): PlatformError {
  const d = ex.deadline!;
  const whose = d.from === 'header' ? "the caller's deadline" : "the route's deadline";
  const what = attempt === 0 ? 'the call was not made' : `retry ${attempt} was not started`;
  return new PlatformError({
    kind: 'timeout',
    notSent: true,
    noRetry: 'deadline',
    detail: `${whose} of ${d.ms} ms was reached: ${what}${last ? ` (last failure: ${last.detail ?? last.title})` : ''}`,
    extensions: { deadlineMs: d.ms },
    cause: last,
  });
}
