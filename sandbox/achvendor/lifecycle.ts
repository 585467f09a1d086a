// The batch lifecycle: RECEIVED -> VALIDATING -> ACCEPTED | REJECTED -> SUBMITTED -> SETTLED |
// PARTIALLY_RETURNED, one step per advance (timed by stepDelay), each change sent as webhooks.

import type { SimLog } from '../lib/sim-server.ts';
import { ACH_ERROR_CODES as E, type Batch, type BatchStatus, RETURN_REASONS, TERMINAL } from './model.ts';
import { type AchState, now } from './state.ts';
import type { AchWebhooks } from './webhooks.ts';

export type AchLifecycle = ReturnType<typeof achLifecycle>;

export function achLifecycle(state: AchState, webhooks: AchWebhooks, log: SimLog) {
  function setStatus(b: Batch, status: BatchStatus, reason?: { code: string; message: string }): void {
    const previous = b.status;
    b.status = status;
    b.status_reason = reason;
    b.updated_at = now();
    b.history.push({ status, at: b.updated_at });
    log('achvendor: batch status', { batchId: b.batch_id, status });
    webhooks.batch(b, previous);
  }

  function schedule(b: Batch): void {
    const t = state.timers.get(b.batch_id);
    if (t) clearTimeout(t);
    state.timers.delete(b.batch_id);
    if (state.stepDelay === null || TERMINAL.has(b.status) || state.closed) return;
    const timer = setTimeout(() => {
      state.timers.delete(b.batch_id);
      try {
        advance(b.batch_id);
      } catch (e) {
        log('achvendor: advance failed', { err: (e as Error).message });
      }
    }, state.stepDelay);
    timer.unref();
    state.timers.set(b.batch_id, timer);
  }

  /** VALIDATING ->: entries planned to fail are rejected; all of them (or a REJECT* reference) reject the batch */
  function validate(b: Batch): void {
    const rejected = b.payments.filter((p) => p.plannedReject);
    for (const p of rejected) {
      p.status = 'REJECTED';
      b.rejected_entries.push({ entry_reference: p.entry_reference, index: p.index, ...p.plannedReject! });
    }
    if (b.batch_reference.startsWith('REJECT') || rejected.length === b.payments.length) {
      for (const p of b.payments) p.status = 'REJECTED';
      setStatus(b, 'REJECTED', {
        code: E.batchRejected,
        message:
          rejected.length === b.payments.length
            ? 'Every entry of the batch was rejected'
            : 'The batch was rejected by the vendor risk checks',
      });
      webhooks.payments(b, b.payments);
    } else {
      setStatus(b, 'ACCEPTED');
      webhooks.payments(b, rejected);
    }
  }

  /** ACCEPTED -> SUBMITTED: the pending entries go to the ACH network */
  function submit(b: Batch): void {
    const live = b.payments.filter((p) => p.status === 'PENDING');
    for (const p of live) p.status = 'SUBMITTED';
    setStatus(b, 'SUBMITTED');
    webhooks.payments(b, live);
  }

  /** SUBMITTED ->: entries settle, or are returned with their planned NACHA reason */
  function settle(b: Batch): void {
    const live = b.payments.filter((p) => p.status === 'SUBMITTED');
    let returned = 0;
    for (const p of live) {
      if (p.plannedReturn) {
        p.status = 'RETURNED';
        p.return_code = p.plannedReturn;
        p.return_reason = RETURN_REASONS[p.plannedReturn];
        returned++;
      } else p.status = 'SETTLED';
    }
    setStatus(b, returned ? 'PARTIALLY_RETURNED' : 'SETTLED');
    webhooks.payments(b, live);
  }

  function advance(batchId: string): BatchStatus {
    const b = state.batches.get(batchId);
    if (!b) throw new Error(`achvendor: no batch ${batchId}`);
    switch (b.status) {
      case 'RECEIVED':
        setStatus(b, 'VALIDATING');
        break;
      case 'VALIDATING':
        validate(b);
        break;
      case 'ACCEPTED':
        submit(b);
        break;
      case 'SUBMITTED':
        settle(b);
        break;
      default:
        return b.status;
    }
    schedule(b);
    return b.status;
  }

  return { setStatus, schedule, advance };
}
