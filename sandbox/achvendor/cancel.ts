// Batch cancel: only before the batch was submitted to the ACH network; a repeated cancel is
// answered again or refused (409), as AchState.repeatedCancel says.

import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import { checkHeaders } from './headers.ts';
import type { AchLifecycle } from './lifecycle.ts';
import { ACH_ERROR_CODES as E, achError, CANCELLABLE } from './model.ts';
import type { AchState } from './state.ts';
import type { AchWebhooks } from './webhooks.ts';

export function cancelHandler(state: AchState, webhooks: AchWebhooks, lifecycle: AchLifecycle) {
  return (req: SimRequest): SimResponse => {
    const bad = checkHeaders(req, state.clientKey, false);
    if (bad) return bad;
    const id = (req.body as { batch_id?: unknown } | undefined)?.batch_id;
    if (typeof id !== 'string' || id === '')
      return achError(400, E.invalidBody, 'Missing field batch_id', 'body.batch_id');
    const b = state.batches.get(id);
    if (!b) return achError(404, E.batchNotFound, `Batch ${id} not found`, 'body.batch_id');
    if (b.status === 'CANCELLED') {
      if (state.repeatedCancel === 'refuse')
        return achError(409, E.alreadyCancelled, `Batch ${id} is already CANCELLED`, 'body.batch_id');
      return {
        status: 200,
        body: { batch_id: id, status: 'CANCELLED', previous_status: b.history.at(-2)?.status ?? 'CANCELLED' },
      };
    }
    if (!CANCELLABLE.has(b.status)) {
      return achError(
        409,
        E.notCancellable,
        `Batch ${id} is ${b.status} and can no longer be cancelled`,
        'body.batch_id',
      );
    }
    const previous = b.status;
    const live = b.payments.filter((p) => p.status === 'PENDING');
    for (const p of live) p.status = 'CANCELLED';
    lifecycle.setStatus(b, 'CANCELLED');
    webhooks.payments(b, live);
    lifecycle.schedule(b);
    return { status: 200, body: { batch_id: id, status: 'CANCELLED', previous_status: previous } };
  };
}
