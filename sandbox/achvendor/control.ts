// Simulator controls (/__achvendor/*, recorded like any request): the webhook target, a manual
// lifecycle step, and "stored, then the answer was lost" faults on submissions.

import type { SimRequest, SimResponse, SimServer } from '../lib/sim-server.ts';
import type { AchLifecycle } from './lifecycle.ts';
import { ACH_ERROR_CODES as E, achError, SUBMIT_CREDIT_BATCH_PATH, SUBMIT_DEBIT_BATCH_PATH } from './model.ts';
import type { AchState } from './state.ts';

/** "stored, then the answer was lost": a fault rule applied after the submit handler ran; replaces the last one */
export function failAfterAcceptControl(server: SimServer) {
  const SUBMIT_PATHS_RE = `^(${SUBMIT_CREDIT_BATCH_PATH}|${SUBMIT_DEBIT_BATCH_PATH})$`;
  let failAfterId: string | undefined;
  return (times: number, status = 503): { times: number; status: number } => {
    if (failAfterId) server.removeFault(failAfterId);
    failAfterId = undefined;
    if (times > 0) {
      failAfterId = server.addFault({
        method: 'POST',
        path: SUBMIT_PATHS_RE,
        after: true,
        times,
        status,
        body: achError(status, E.unavailable, 'Service temporarily unavailable', 'gateway').body,
      }).id;
    }
    return { times, status };
  };
}

export function controlHandlers(
  state: AchState,
  lifecycle: AchLifecycle,
  failAfterAccept: ReturnType<typeof failAfterAcceptControl>,
) {
  return {
    webhooks(req: SimRequest): SimResponse {
      const u = (req.body as { base_url?: unknown } | undefined)?.base_url;
      if (u !== null && typeof u !== 'string')
        return { status: 400, body: { error: 'base_url must be a URL string or null' } };
      state.webhookBase = u;
      return { status: 200, body: { base_url: state.webhookBase } };
    },
    advance(req: SimRequest): SimResponse {
      if (!state.batches.has(req.params.batchId!)) return { status: 404, body: { error: 'no such batch' } };
      return { status: 200, body: { batch_id: req.params.batchId, status: lifecycle.advance(req.params.batchId!) } };
    },
    failAfterAccept(req: SimRequest): SimResponse {
      const b = (req.body ?? {}) as { times?: unknown; status?: unknown };
      const times = b.times ?? 1;
      const status = b.status ?? 503;
      if (!Number.isInteger(times) || (times as number) < 0)
        return { status: 400, body: { error: 'times must be an integer >= 0' } };
      if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599)
        return { status: 400, body: { error: 'status must be an integer between 100 and 599' } };
      return { status: 200, body: failAfterAccept(times as number, status as number) };
    },
  };
}
