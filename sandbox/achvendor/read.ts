// Reading a batch (simulator only): the whole stored batch, payments and history included.

import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import { checkHeaders } from './headers.ts';
import { ACH_ERROR_CODES as E, achError } from './model.ts';
import type { AchState } from './state.ts';

export function readHandler(state: AchState) {
  return (req: SimRequest): SimResponse => {
    const bad = checkHeaders(req, state.clientKey, false);
    if (bad) return bad;
    const b = state.batches.get(req.params.batchId!);
    return b
      ? { status: 200, body: b }
      : achError(404, E.batchNotFound, `Batch ${req.params.batchId} not found`, 'path.batchId');
  };
}
