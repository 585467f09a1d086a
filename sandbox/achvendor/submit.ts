// Batch submission (credit or debit): header and idempotency checks, the vendor's NACHA body
// checks (./model.ts), then the batch is stored RECEIVED and its lifecycle starts.

import type { SimRequest, SimResponse } from '../lib/sim-server.ts';
import { checkHeaders, header } from './headers.ts';
import type { AchLifecycle } from './lifecycle.ts';
import { ACH_ERROR_CODES as E, achError, type Batch, checkBatchBody, type Entry, plannedOutcome } from './model.ts';
import { type AchState, now } from './state.ts';
import type { AchWebhooks } from './webhooks.ts';

type Direction = 'credit' | 'debit';

export function submitHandler(direction: Direction, state: AchState, webhooks: AchWebhooks, lifecycle: AchLifecycle) {
  return (req: SimRequest): SimResponse => {
    const bad = checkHeaders(req, state.clientKey, true);
    if (bad) return bad;
    const key = header(req, 'idempotent_request_key')!;
    const fingerprint = `${direction}:${JSON.stringify(req.body)}`;
    const seen = state.idempotency.get(key);
    if (seen) {
      if (seen.fingerprint !== fingerprint)
        return achError(
          409,
          E.idempotencyMismatch,
          'idempotent_request_key was already used for a different request',
          'header.idempotent_request_key',
        );
      return { status: seen.status, body: seen.body, headers: { 'idempotent-replayed': 'true' } };
    }
    const invalid = checkBatchBody(req.body, direction);
    if (invalid) return invalid;
    const body = req.body as Record<string, any>;
    if (state.byReference.has(body.batch_reference)) {
      return achError(
        409,
        E.duplicateBatchReference,
        `Duplicate batch_reference ${body.batch_reference}`,
        'body.batch_reference',
      );
    }
    const at = now();
    const batchId = `ACHB-${Date.now().toString(36).toUpperCase()}-${(++state.seq).toString().padStart(5, '0')}`;
    const b = newBatch(batchId, body, direction, at);
    state.batches.set(batchId, b);
    state.byReference.set(b.batch_reference, batchId);
    const answer = {
      batch_id: batchId,
      batch_reference: b.batch_reference,
      status: b.status,
      entry_count: b.entry_count,
      total_credit_minor: b.total_credit_minor,
      total_debit_minor: b.total_debit_minor,
      rejected_entries: [],
    };
    state.idempotency.set(key, { fingerprint, status: 200, body: answer });
    webhooks.batch(b, undefined);
    lifecycle.schedule(b);
    return { status: 200, body: answer };
  };
}

/** A RECEIVED batch; each entry's outcome is planned now from its account number. */
function newBatch(batchId: string, body: Record<string, any>, direction: Direction, at: string): Batch {
  const entries = body.entries as Entry[];
  const total = entries.reduce((s, e) => s + e.amount_minor, 0);
  return {
    batch_id: batchId,
    batch_reference: body.batch_reference,
    direction,
    sec_code: body.sec_code,
    originating_dfi: body.originating_dfi,
    status: 'RECEIVED',
    entry_count: entries.length,
    total_credit_minor: direction === 'credit' ? total : 0,
    total_debit_minor: direction === 'debit' ? total : 0,
    rejected_entries: [],
    payments: entries.map((e, i) => {
      const o = plannedOutcome(e);
      return {
        payment_id: `${batchId}-${String(i + 1).padStart(5, '0')}`,
        entry_reference: e.entry_reference,
        index: i,
        transaction_code: e.transaction_code,
        amount_minor: e.amount_minor,
        status: 'PENDING',
        ...(o.reject ? { plannedReject: o.reject } : {}),
        ...(o.returnCode ? { plannedReturn: o.returnCode } : {}),
      };
    }),
    history: [{ status: 'RECEIVED', at }],
    created_at: at,
    updated_at: at,
  };
}
